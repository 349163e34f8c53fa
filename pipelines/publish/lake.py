"""The Parquet lake BI tools and distributed engines read, and the serving database over it.

Every core, raw, snapshots and events table is written under LAKE_PATH as zstd Parquet, in a
version of the lake (`_versions`: `LAKE/publish=<N>/`, made visible whole by one rename). Tables
with a day are hive-partitioned by it (`core.breakdowns/day=2026-11-01/data.parquet`, snapshots
by `snapshot_day`, webhook deliveries by the UTC day they were received), the small ones (the
catalog's `lake_grain="month"`) by month, their day kept in the file. Writers mark the
partitions they change in meta.lake_changes (in their own transactions); a publish first computes
the chargeback of the days marked (`refresh_chargeback`), then writes only the marked partitions
and the small tables into the new version, and hard-links every other partition file of the
previous one: its cost follows what the run changed, plus a link and a directory a partition. The
serving database (SERVING_PATH) of views over the lake is `_serving`'s; `_published` checks the
lake against what this warehouse last published into it; `_tables` knows a table's partitions.

Each partitioned table also holds a zero-row file with its schema in the partition Hive names
for NULL (`day=__HIVE_DEFAULT_PARTITION__/data.parquet`). So a table's glob matches from the first
publish on, even before it has a day, and its view is the same read_parquet then as later.
DuckDB, Polars, PyArrow, Spark and Trino read that partition as NULL and find no rows in it.
"""

from __future__ import annotations

import os
import re
import shutil
from dataclasses import dataclass
from datetime import date, timedelta
from pathlib import Path

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq

from pipelines._words import counted
from pipelines.publish._published import DATA_FILE, Written, asked, drifted_files, record
from pipelines.publish._serving import SCHEMAS, build_serving, glob_literal
from pipelines.publish._tables import LakeTable
from pipelines.publish._versions import CURRENT, GRACE, make_visible, remove_superseded, start, versions
from pipelines.publish.aggregate import DEFAULT_K, publish_aggregate
from pipelines.warehouse.catalog import TABLES
from pipelines.warehouse.chargeback import refresh_chargeback
from pipelines.warehouse.sql import run_sql

__all__ = [
    "CURRENT",
    "DATA_FILE",
    "GRACE",
    "SCHEMAS",
    "LakeTable",
    "PublishResult",
    "glob_literal",
    "lake_tables",
    "publish",
    "remove_unpublished_files",
    "unreadable_lake_file",
]

REWRITE_ALL = "*"  # a meta.lake_changes row naming this: every table is written again
EMPTY_PARTITION = "__HIVE_DEFAULT_PARTITION__"  # Hive's name for a NULL partition value


@dataclass(frozen=True)
class PublishResult:
    partitions_written: int
    partitions_removed: int
    tables_written: int
    serving_path: Path
    # Lake files that were not as this warehouse last published them, written again from it.
    repaired: tuple[str, ...] = ()
    partitions_linked: int = 0  # unchanged partition files of the previous version, hard-linked
    version: Path | None = None
    late_us: int = 0  # how long after its time the version was renamed in (a stalled process)

    def warnings(self) -> tuple[str, ...]:
        """The lines a person sees: the lake had to be repaired, a version came late."""
        lines = (self._repaired(), self._late())
        return tuple(line for line in lines if line is not None)

    def _late(self) -> str | None:
        if not self.late_us:
            return None
        return (
            f"lake: the new version was renamed in {self.late_us / 1e6:.3f} s after its time (the process stalled), "
            "so a query started in between may have read tables of two publishes: run it again"
        )

    def _repaired(self) -> str | None:
        if not self.repaired:
            return None
        shown = ", ".join(self.repaired[:3]) + (f" and {len(self.repaired) - 3} more" if len(self.repaired) > 3 else "")
        were = "was" if len(self.repaired) == 1 else "were"
        return (
            f"lake: {counted(len(self.repaired), 'partition file')} {were} not as this warehouse last published them "
            f"(the warehouse was restored or replaced, or a file was changed or damaged outside the pipeline); "
            f"written again from the warehouse: {shown}"
        )


# A lake file DuckDB failed to read names itself, quoted, in the error's first line.
_LAKE_FILE = re.compile(r"""['"](?P<path>[^'"]+\.parquet)['"]""")


def unreadable_lake_file(error: str) -> str | None:
    """One line for a read that failed on a damaged lake file, with what to do; else None."""
    from pipelines.warehouse.sql import first_meaningful_line

    line = first_meaningful_line(error)
    match = _LAKE_FILE.search(line)
    if match is None:
        return None
    said = line[: match.start()].strip() or line  # DuckDB's words before the path
    return (
        f"cannot read the lake file {match.group('path')} ({said}): run `metrics-etl publish`, which writes a "
        "damaged lake file again from the warehouse"
    )


def remove_unpublished_files(lake: Path) -> list[str]:
    """Remove every version of the lake but the newest at once, without the grace period (and a
    lake's table directories from before versions): what an erasure calls after publishing, so
    no superseded copy of a row survives. The names of the versions removed."""
    before = {v.path.name for v in versions(lake)}
    remove_superseded(lake, legacy=[t.name for t in TABLES], grace=timedelta(0))
    return sorted(before - {v.path.name for v in versions(lake)})


def lake_tables(conn: duckdb.DuckDBPyConnection) -> list[LakeTable]:
    columns: dict[tuple[str, str], list[tuple[str, str]]] = {}
    for schema, table, column, data_type in run_sql(conn, "warehouse/select_lake_columns.sql", schemas=list(SCHEMAS)):
        columns.setdefault((schema, table), []).append((column, data_type))
    return [LakeTable(s, t, tuple(cols)) for (s, t), cols in columns.items()]


def _write_file(rows: pa.Table, directory: Path) -> Path:
    # Inside the version being built, which no reader sees before its rename.
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / DATA_FILE
    pq.write_table(rows, path, compression="zstd")
    with path.open("rb") as handle:
        os.fsync(handle.fileno())
    return path


def _link(source: Path, directory: Path) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    os.link(source, directory / DATA_FILE)


def _has_schema(path: Path, schema: pa.Schema) -> bool:
    try:
        return bool(pq.read_schema(path).equals(schema, check_metadata=False))
    except (OSError, pa.ArrowException):  # missing, or not Parquet any more: written again
        return False


@dataclass
class _Counts:
    written: int = 0
    linked: int = 0
    removed: int = 0


def _partitions_on_disk(root: Path, column: str) -> set[str]:
    """The partition values of a table's directory in a version that hold a data file."""
    try:
        entries = list(os.scandir(root))
    except FileNotFoundError:
        return set()
    found = set()
    for entry in entries:
        key, _, value = entry.name.partition("=")
        if key == column and os.path.isfile(os.path.join(entry.path, DATA_FILE)):
            found.add(value)
    return found


def _as_day(value: str) -> date | None:
    try:
        return date.fromisoformat(value)
    except ValueError:  # not a partition this pipeline writes
        return None


def _publish_partitions(
    conn: duckdb.DuckDBPyConnection,
    table: LakeTable,
    previous: Path | None,
    staging: Path,
    changed: set[date],
    drifted: set[str],
    written: Written,
    counts: _Counts,
) -> None:
    """The table's partitions in the version being built: the days of `changed` and those whose
    files drifted (values of `drifted`) written from the warehouse, every other partition of the
    previous version linked; with no previous version (`None`: a full publish) all written."""
    p = table.partitioning
    assert p is not None
    root, old = staging / table.name, previous / table.name if previous is not None else None
    empty = conn.sql(table.no_rows()).to_arrow_table()
    name = f"{p.column}={EMPTY_PARTITION}"
    # Linked unless its schema changed, or it is not as the last publish left it.
    if old is not None and EMPTY_PARTITION not in drifted and _has_schema(old / name / DATA_FILE, empty.schema):
        _link(old / name / DATA_FILE, root / name)
    else:
        written.wrote(_write_file(empty, root / name))
    if old is None:
        on_disk: set[str] = set()
        days = {row[0] for row in conn.execute(table.partition_values()).fetchall()}
    else:
        on_disk = _partitions_on_disk(old, p.column) - {EMPTY_PARTITION}
        days = set(changed)
        for value in drifted - {EMPTY_PARTITION}:
            day = _as_day(value)
            if day is None:  # nothing of the warehouse's: left out of the new version
                written.removed(root / f"{p.column}={value}" / DATA_FILE)
            else:
                days.add(day)
        for value in sorted(on_disk - drifted - {d.isoformat() for d in days}):
            _link(old / f"{p.column}={value}" / DATA_FILE, root / f"{p.column}={value}")
            counts.linked += 1
    sql = table.select()
    for day in sorted(days):
        directory = root / f"{p.column}={day.isoformat()}"
        rows = conn.sql(sql, params=table.partition_params(day)).to_arrow_table()
        if rows.num_rows:
            written.wrote(_write_file(rows, directory))
            counts.written += 1
        else:
            written.removed(directory / DATA_FILE)
            counts.removed += day.isoformat() in on_disk


def publish(
    conn: duckdb.DuckDBPyConnection,
    *,
    lake: Path,
    serving: Path,
    full: bool = False,
    grace: timedelta = GRACE,
    k: int = DEFAULT_K,
) -> PublishResult:
    """A new version of the lake, the serving database over it, then the aggregate tier (no group
    under `k` people: aggregate.py) beside them; returns once readers take the version.

    The version links the previous one's partitions a run did not change and writes the changed
    ones and the small tables. Partition files that are not as this warehouse last published them
    are written again too (and named in the result); `full` writes every partition again.
    Versions superseded more than `grace` ago are removed.
    """
    run_sql(conn, "warehouse/limit_publish.sql")
    refresh_chargeback(conn, full=full)  # before the changes are read: it marks the days it wrote
    changes: dict[str, set[date]] = {}
    for name, day in run_sql(conn, "warehouse/select_lake_changes.sql"):
        changes.setdefault(name, set()).add(day)
    tables = lake_tables(conn)
    found = versions(lake)
    # Everything is written when asked, after a migration, and when there is no version yet (a
    # new lake, or one published before versions): then no file of it is a surprise (`drifted`).
    previous = None if full or REWRITE_ALL in changes or not found else found[0]
    drifted = drifted_files(conn, previous.path, tables) if previous is not None else []
    by_table: dict[str, set[str]] = {}
    for path in drifted:
        name, partition, _ = path.split("/")
        by_table.setdefault(name, set()).add(partition.split("=", 1)[1])
    staging = start(lake, found[0] if found else None)
    written = Written(staging, {}, set())
    counts, whole = _Counts(), 0
    try:
        for table in tables:
            if table.partitioning is None:  # small: written whole by every publish
                _write_file(conn.sql(table.select()).to_arrow_table(), staging / table.name)
                whole += 1
                continue
            days = {table.partition_of(d) for d in changes.get(table.name, set()) if d is not None}
            _publish_partitions(
                conn,
                table,
                previous.path if previous is not None else None,
                staging,
                days,
                by_table.get(table.name, set()),
                written,
                counts,
            )
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    version, late = make_visible(staging, found[0] if found else None)
    record(conn, written, whole=previous is None)
    build_serving(tables, lake=lake, target=serving, not_before=version.visible_from)
    publish_aggregate(conn, serving=serving, k=k, grace=grace)
    remove_superseded(lake, legacy=[t.name for t in tables], grace=grace)
    marked = {
        t.name: {t.partition_of(d).isoformat() for d in changes.get(t.name, set()) if d is not None}
        for t in tables
        if t.partitioning is not None
    }
    repaired = tuple(path for path in drifted if not asked(path, marked))
    return PublishResult(counts.written, counts.removed, whole, serving, repaired, counts.linked, version.path, late)
