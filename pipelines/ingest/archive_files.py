"""Which archived files the warehouse names, and the files no `raw.report_files` row names.

A report fetched again whose bytes changed (a provisional day grows until it is final) is
archived under a new name (its sha256), and its landing replaces the file's row: the file it
replaced would otherwise stay on disk with no row, where neither `metrics-etl forget` nor
retention (both led by the rows) would ever reach it. So:

- a fetch, once its landing has committed or rolled back, removes from its report's directories
  every archive file no row names (`remove_unrecorded`): the files it replaced, the files of a
  landing that did not commit, and those an earlier run killed between its commit and this
  removal left. A file is removed only after the row of the file replacing it has committed, so
  a failed landing never loses the file its rows name;
- `forget` writes every archive file no row names without the person (`unrecorded_files`), never
  removing one: after a restored backup such a file may be the only copy of a day;
- retention removes every archive file in the directory of a report whose last day expired,
  named by a row or not, wherever the data home was when the row was written
  (`expired_files`).

A file is matched to its row by its place under RAW_DIR (`<scope>/<name>/<level>-<kind>/
<start>_<end>/<file>`), so a data home moved since its rows were written is read as it is now.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from datetime import date
from pathlib import Path

import duckdb

from pipelines.warehouse.sql import run_sql

__all__ = ["archive_place", "expired_files", "recorded_places", "remove_unrecorded", "unrecorded_files"]

# An archive file's name: its file index and the first 16 hex digits of its sha256 (archive.py, rewrite.py).
ARCHIVE_NAME = re.compile(r"\d{4}-[0-9a-f]{16}\.ndjson\.zst")
# <scope>/<name>/<level>-<kind>/<start>_<end>/<file> under RAW_DIR (archive.report_dir).
_DEPTH = 5
_DAYS = re.compile(r"(?P<start>\d{4}-\d{2}-\d{2})_(?P<end>\d{4}-\d{2}-\d{2})")


def archive_place(path: str | Path) -> tuple[str, ...]:
    """A file's place under RAW_DIR, whichever directory held the data home when it was recorded."""
    return Path(path).parts[-_DEPTH:]


def recorded_places(conn: duckdb.DuckDBPyConnection) -> set[tuple[str, ...]]:
    """The place of every archive file a `raw.report_files` row names (committed rows, or the
    open transaction's)."""
    return {archive_place(path) for (path,) in run_sql(conn, "ingest/select_archive_paths.sql")}


def _archive_files(directory: Path) -> Iterator[Path]:
    try:
        entries = sorted(directory.iterdir())
    except (FileNotFoundError, NotADirectoryError):
        return
    for entry in entries:
        if ARCHIVE_NAME.fullmatch(entry.name) and entry.is_file():
            yield entry


def _report_dirs(raw_dir: Path) -> Iterator[Path]:
    """Every report directory under RAW_DIR: `<scope>/<name>/<level>-<kind>/<start>_<end>`."""
    for directory in sorted(raw_dir.glob("*/*/*/*")):
        if _DAYS.fullmatch(directory.name) and directory.is_dir():
            yield directory


def remove_unrecorded(conn: duckdb.DuckDBPyConnection, directories: Iterable[Path]) -> list[Path]:
    """Remove from `directories` every archive file no row names; the files removed.

    Call it outside a landing's transaction, after it committed or rolled back: the rows then
    name the files the warehouse keeps, and any other file there is superseded or never landed.
    """
    named = recorded_places(conn)
    removed: list[Path] = []
    for directory in dict.fromkeys(directories):
        for path in _archive_files(directory):
            if archive_place(path) not in named:
                path.unlink(missing_ok=True)
                removed.append(path)
    return removed


def unrecorded_files(conn: duckdb.DuckDBPyConnection, raw_dir: Path) -> list[Path]:
    """The archive files under `raw_dir` that can name a person (every level but the aggregate
    one) and that no row names: a crash's leftovers, or files of fetches a restored warehouse
    does not know."""
    named = recorded_places(conn)
    return [
        path
        for directory in _report_dirs(raw_dir)
        if not directory.parent.name.startswith("aggregate-")
        for path in _archive_files(directory)
        if archive_place(path) not in named
    ]


def expired_files(raw_dir: Path, *, cutoff: date) -> list[Path]:
    """Every archive file under `raw_dir` of a report whose last day is before `cutoff`."""
    expired: list[Path] = []
    for directory in _report_dirs(raw_dir):
        match = _DAYS.fullmatch(directory.name)
        assert match is not None
        if date.fromisoformat(match.group("end")) < cutoff:
            expired.extend(_archive_files(directory))
    return expired
