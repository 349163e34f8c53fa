"""What a report's landing replaces (its slice: scope, kind and level over its days) and what a
report carried in its transaction brings (parsed rows per table, its raw rows)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import polars as pl

    from pipelines.service import ReportRef

__all__ = ["CarriedReport", "ReportSlice"]


@dataclass(frozen=True)
class CarriedReport:
    """A day's report landed inside another's transaction (user-teams with the user report,
    repos with the aggregate one), parsed: its rows per table and its raw.* rows."""

    ref: ReportRef
    rows: dict[str, pl.DataFrame]  # table name -> rows, the tables its writer (its level) writes
    files: pl.DataFrame | None  # raw.report_files
    quarantine: pl.DataFrame | None  # raw.quarantine
    lines: int  # the lines landed (one row each in its first table)


@dataclass(frozen=True)
class ReportSlice:
    """What a landing replaces: the report's scope, kind and level over the days it covers."""

    ref: ReportRef
    start_day: date
    end_day: date

    def describe(self) -> str:
        days = f"{self.start_day}" if self.start_day == self.end_day else f"{self.start_day}..{self.end_day}"
        return f"{self.ref.scope} {self.ref.scope_name} {self.ref.level} {days}"
