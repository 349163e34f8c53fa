"""Quarantined report lines for a person to review: list them, show one, clear the accepted ones.

The functions take an open warehouse connection and return data; `metrics-etl quarantine`
formats it. A line is named by a key that says where it came from:
`organization/acme/user/2026-11-01/0003:1542` (scope/name/level/day/file:line; a 28-day
report's days are `2026-10-01..2026-10-28`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path
from typing import Any

import duckdb

from pipelines.warehouse import migrate
from pipelines.warehouse.sql import connect, rollback, run_sql


class QuarantineError(Exception):
    """An expected failure, in one line: what is wrong and what to do."""


class BadKey(QuarantineError):
    """Text that is not a key as `metrics-etl quarantine list` prints it."""


_KEY = re.compile(
    r"^(?P<scope>[^/]+)/(?P<name>[^/]+)/(?P<level>[^/]+)/(?P<start>[^/.]+)(?:\.\.(?P<end>[^/.]+))?/(?P<file>\d+):(?P<line>\d+)$"
)


@dataclass(frozen=True)
class LineKey:
    """Where a quarantined line came from: its report, file and line number."""

    scope: str
    scope_name: str
    level: str
    start_day: date
    end_day: date
    file_index: int
    line_number: int

    def __str__(self) -> str:
        days = str(self.start_day) if self.start_day == self.end_day else f"{self.start_day}..{self.end_day}"
        return f"{self.scope}/{self.scope_name}/{self.level}/{days}/{self.file_index:04d}:{self.line_number}"

    @classmethod
    def parse(cls, text: str) -> LineKey:
        match = _KEY.match(text.strip())
        try:
            if match is None:
                raise ValueError
            start = date.fromisoformat(match["start"])
            end = date.fromisoformat(match["end"]) if match["end"] else start
        except ValueError:
            raise BadKey(
                f"{text!r} is not a quarantine key: expected scope/name/level/day/file:line "
                "as `metrics-etl quarantine list` prints it, e.g. organization/acme/user/2026-11-01/0003:1542"
            ) from None
        return cls(match["scope"], match["name"], match["level"], start, end, int(match["file"]), int(match["line"]))

    def params(self) -> dict[str, Any]:
        return {
            "scope": self.scope,
            "scope_name": self.scope_name,
            "level": self.level,
            "start_day": self.start_day,
            "end_day": self.end_day,
            "file_index": self.file_index,
            "line_number": self.line_number,
        }


@dataclass(frozen=True)
class QuarantinedLine:
    """One row of raw.quarantine, as a person reads it."""

    key: LineKey
    report_kind: str
    reason: str
    line_text: str | None  # the line's first 2,000 bytes as text; the archive holds it whole
    archive_path: str
    link: str
    fetched_at: datetime
    cleared_at: datetime | None
    cleared_note: str | None

    @property
    def is_open(self) -> bool:
        return self.cleared_at is None

    @classmethod
    def from_row(cls, row: tuple[Any, ...]) -> QuarantinedLine:
        scope, name, kind, level, start, end, file_index, line = row[:8]
        reason, text, archive, link, fetched, cleared, note = row[8:]
        key = LineKey(scope, name, level, start, end, file_index, line)
        return cls(key, kind, reason, text, archive, link, fetched, cleared, note)


@dataclass(frozen=True)
class Selection:
    """Lines of the reports covering any day from first_day to last_day (None: no bound), of
    one scope name (None: every one). A 28-day report covers each of its 28 days."""

    first_day: date | None = None
    last_day: date | None = None
    scope_name: str | None = None

    def params(self) -> dict[str, Any]:
        return {"first_day": self.first_day, "last_day": self.last_day, "scope_name": self.scope_name}


@dataclass(frozen=True)
class ClearResult:
    cleared: int  # open lines now cleared
    already: int  # lines of the selection that were cleared before, left as they were


_LOCKED = re.compile(r"Could not set lock on file|Conflicting lock", re.IGNORECASE)


@contextmanager
def open_warehouse(path: Path, *, write: bool) -> Iterator[duckdb.DuckDBPyConnection]:
    """The warehouse, read-only to look (it never takes the lock a run writes under) or
    read-write to clear (migrated first, so an older warehouse gains the review columns)."""
    if not path.exists():
        raise QuarantineError(f"nothing landed yet ({path.resolve()} does not exist)")
    try:
        conn = connect(path, read_only=not write)
    except duckdb.Error as exc:
        raise QuarantineError(_open_failure(path, exc)) from None
    try:
        if write:
            migrate(conn)
        _create_review_view(conn, path)
        yield conn
    finally:
        conn.close()


def _open_failure(path: Path, exc: duckdb.Error) -> str:
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    if _LOCKED.search(str(exc)):
        return (
            f"another process holds the warehouse open for writing (a running metrics-etl or dagster): "
            f"retry when that run ends ({path.resolve()}: {text})"
        )
    return f"cannot open the warehouse {path.resolve()}: {text}"


def _create_review_view(conn: duckdb.DuckDBPyConnection, path: Path) -> None:
    columns = {row[0] for row in run_sql(conn, "quarantine/select_review_columns.sql")}
    if not columns:
        raise QuarantineError(f"nothing landed yet ({path.resolve()} has no raw.quarantine table)")
    # A warehouse not migrated to 027 is read as it is, every line open (none can have been
    # cleared there): migrating it would mean opening it for writing, which fails while a run
    # holds it and changes the warehouse on a command that only looks. The next run or
    # `clear` migrates it.
    if "cleared_at" in columns:
        run_sql(conn, "quarantine/create_review_view.sql")
    else:
        run_sql(conn, "quarantine/create_review_view_before_027.sql")


def list_lines(
    conn: duckdb.DuckDBPyConnection, selection: Selection, *, include_cleared: bool = False
) -> list[QuarantinedLine]:
    """The selection's lines, open ones only unless include_cleared; newest reports first."""
    rows = run_sql(conn, "quarantine/select_lines.sql", include_cleared=include_cleared, **selection.params())
    return [QuarantinedLine.from_row(row) for row in rows]


@dataclass(frozen=True)
class RepeatedLines:
    """A report's lines that repeated an earlier line of their key: landed once, not quarantined."""

    scope: str
    scope_name: str
    level: str
    start_day: date
    end_day: date
    lines: int

    def __str__(self) -> str:
        days = str(self.start_day) if self.start_day == self.end_day else f"{self.start_day}..{self.end_day}"
        return f"{self.scope}/{self.scope_name}/{self.level}/{days}"


def repeated_lines(conn: duckdb.DuckDBPyConnection, selection: Selection) -> list[RepeatedLines]:
    """The selection's reports that held repeated lines, with how many (none before migration 079)."""
    columns = {row[0] for row in run_sql(conn, "quarantine/select_report_files_columns.sql")}
    if "repeated_lines" not in columns:
        return []
    return [RepeatedLines(*row) for row in run_sql(conn, "quarantine/select_repeated_lines.sql", **selection.params())]


def find_lines(conn: duckdb.DuckDBPyConnection, key: LineKey) -> list[QuarantinedLine]:
    """The key's rows: none, one, or an open one beside a cleared one (another bad line now
    sits where the cleared one was), open first."""
    return [QuarantinedLine.from_row(row) for row in run_sql(conn, "quarantine/select_line.sql", **key.params())]


def _require_note(note: str) -> str:
    if not note.strip():
        raise ValueError("a clear needs a note saying why the lines are accepted")
    return note.strip()


def clear_keys(conn: duckdb.DuckDBPyConnection, keys: Sequence[LineKey], *, note: str) -> ClearResult:
    """Clear the open lines of these keys, all or none: a key that matches no line raises
    QuarantineError naming it, and nothing is cleared (a typo never half-applies)."""
    note = _require_note(note)
    conn.execute("BEGIN TRANSACTION")
    try:
        found = {key: find_lines(conn, key) for key in dict.fromkeys(keys)}
        unknown = [str(key) for key, lines in found.items() if not lines]
        if unknown:
            raise QuarantineError(
                f"no quarantined line has key {', '.join(unknown)} (nothing cleared; "
                "`metrics-etl quarantine list --all` prints the keys)"
            )
        cleared = sum(len(run_sql(conn, "quarantine/clear_line.sql", note=note, **key.params())) for key in found)
        already = sum(1 for lines in found.values() for line in lines if not line.is_open)
        conn.execute("COMMIT")
    except BaseException:
        rollback(conn)
        raise
    return ClearResult(cleared=cleared, already=already)


def clear_selection(conn: duckdb.DuckDBPyConnection, selection: Selection, *, note: str) -> ClearResult:
    """Clear every open line `list_lines` gives for the selection."""
    note = _require_note(note)
    conn.execute("BEGIN TRANSACTION")
    try:
        cleared = len(run_sql(conn, "quarantine/clear_selected_lines.sql", note=note, **selection.params()))
        already = len(list_lines(conn, selection, include_cleared=True)) - cleared
        conn.execute("COMMIT")
    except BaseException:
        rollback(conn)
        raise
    return ClearResult(cleared=cleared, already=already)
