"""The tables a publish writes into the lake: each one's columns and how its files are partitioned.

Apart from `lake`, so the modules that write and read the lake (`_published`, `_serving`) know a
table without importing the publish that uses them.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from typing import Any

from pipelines.warehouse.catalog import TABLES, Table

__all__ = ["LakeTable", "Partitioning"]


@dataclass(frozen=True)
class Partitioning:
    column: str  # the hive column in the lake's paths
    in_file: bool  # False: the table's own column, kept in the path only (hive style)
    source: str  # the table's day column a partition is of
    grain: str = "day"  # "month": one partition a month, named by its first day (`month`)


def _partitioning(t: Table) -> Partitioning:
    assert t.partition is not None
    if t.lake_grain == "month":
        return Partitioning("month", in_file=True, source=t.partition, grain="month")
    return Partitioning(t.partition, in_file=t.partition_in_file, source=t.partition)


# Tables partitioned by a day (the catalog's); every other table of SCHEMAS is small and written whole.
_PARTITIONS: dict[str, Partitioning] = {t.name: _partitioning(t) for t in TABLES if t.partition is not None}


def _next_month(day: date) -> date:
    return (day.replace(day=28) + timedelta(days=4)).replace(day=1)


@dataclass(frozen=True)
class LakeTable:
    schema: str
    table: str
    columns: tuple[tuple[str, str], ...]  # (name, DuckDB type) in the warehouse's order

    @property
    def name(self) -> str:
        return f"{self.schema}.{self.table}"

    @property
    def partitioning(self) -> Partitioning | None:
        return _PARTITIONS.get(self.name)

    def _quoted(self) -> str:
        # Identifiers come from the warehouse's own catalog, never from input.
        return f'"{self.schema}"."{self.table}"'

    def select(self) -> str:
        """The query of one partition's rows (bound by `partition_params`) or of the whole table."""
        p = self.partitioning
        if p is None:
            return f"SELECT * FROM {self._quoted()}"
        if p.grain == "month":  # ordered, so a reader's filter on the day skips row groups
            return (
                f'SELECT * FROM {self._quoted()} WHERE "{p.source}" >= $start AND "{p.source}" < $end '
                f'ORDER BY "{p.source}"'
            )
        if p.in_file:  # received_day: the UTC day of received_at, as a range zone maps can use
            return f"SELECT * FROM {self._quoted()} WHERE received_at >= $start AND received_at < $end"
        return f'SELECT * EXCLUDE ("{p.column}") FROM {self._quoted()} WHERE "{p.column}" = $day'

    def no_rows(self) -> str:
        """The query of a partition's columns without rows: the schema of its lake files."""
        p = self.partitioning
        assert p is not None
        if p.in_file:
            return f"SELECT * FROM {self._quoted()} LIMIT 0"
        return f'SELECT * EXCLUDE ("{p.column}") FROM {self._quoted()} LIMIT 0'

    def partition_of(self, day: date) -> date:
        """The partition (its value) a changed day is in."""
        p = self.partitioning
        return day.replace(day=1) if p is not None and p.grain == "month" else day

    def partition_params(self, value: date) -> dict[str, Any]:
        p = self.partitioning
        if p is not None and p.grain == "month":
            return {"start": value, "end": _next_month(value)}
        if p is not None and p.in_file:
            start = datetime.combine(value, time(), tzinfo=UTC)
            return {"start": start, "end": start + timedelta(days=1)}
        return {"day": value}

    def partition_values(self) -> str:
        p = self.partitioning
        assert p is not None
        if p.grain == "month":
            return f"SELECT DISTINCT CAST(date_trunc('month', \"{p.source}\") AS DATE) FROM {self._quoted()}"
        if p.in_file:
            return f"SELECT DISTINCT CAST(timezone('UTC', received_at) AS DATE) FROM {self._quoted()}"
        return f'SELECT DISTINCT "{p.column}" FROM {self._quoted()}'
