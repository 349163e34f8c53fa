"""The Parquet lake BI tools and distributed engines read, and the serving database over it.

Every core, raw, snapshots and events table is written under LAKE_PATH as zstd Parquet. Tables
with a day are hive-partitioned by it (`core.breakdowns/day=2026-11-01/data.parquet`,
snapshots by `snapshot_day`, webhook deliveries by the UTC day they were received); each
partition is written aside and renamed into place, so a reader sees a whole old or a whole new
partition, never half a file. Writers mark the partitions they change in meta.lake_changes (in
their own transactions), and a publish rewrites only those and the small unpartitioned tables:
its cost follows what the run changed, not what the warehouse holds.

The serving database (SERVING_PATH) of views over the lake is built by `_serving`; what the
lake holds is checked against what this warehouse last published into it by `_published`.

Each partitioned table also holds a zero-row file with its schema in the partition Hive names
for NULL (`day=__HIVE_DEFAULT_PARTITION__/data.parquet`). So a table's glob matches from the first
publish on, even before it has a day, and its view is the same read_parquet then as later: a
connection held across the publish that gives the table its first day sees that day. DuckDB,
Polars, PyArrow, Spark and Trino read that partition as NULL and find no rows in it.
"""

from __future__ import annotations

import os
import re
import shutil
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq

from pipelines._words import counted
from pipelines.warehouse._published import DATA_FILE, Written, asked, drifted_files, record
from pipelines.warehouse._published import remove_unpublished_files as _remove_unpublished
from pipelines.warehouse._serving import SCHEMAS, build_serving, glob_literal
from pipelines.warehouse.aggregate import DEFAULT_K, publish_aggregate
from pipelines.warehouse.catalog import TABLES
from pipelines.warehouse.sql import run_sql

__all__ = [
    "DATA_FILE", "SCHEMAS", "LakeTable", "PublishResult", "glob_literal", "lake_tables", "publish",
    "remove_unpublished_files", "unreadable_lake_file",
]

REWRITE_ALL = "*"  # a meta.lake_changes row naming this: every table is written again
EMPTY_PARTITION = "__HIVE_DEFAULT_PARTITION__"  # Hive's name for a NULL partition value


@dataclass(frozen=True)
class Partitioning:
    column: str  # the hive column in the lake's paths
    in_file: bool  # False: the table's own column, kept in the path only (hive style)


# Tables partitioned by a day (the catalog's); every other table of SCHEMAS is small and written whole.
_PARTITIONS: dict[str, Partitioning] = {
    t.name: Partitioning(t.partition, in_file=t.partition_in_file) for t in TABLES if t.partition is not None
}

# Published after the other tables (see publish): rows that detail a day's report rows.
_DETAIL_TABLES = frozenset(t.name for t in TABLES if t.detail)


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

    def partition_params(self, day: date) -> dict[str, Any]:
        p = self.partitioning
        if p is not None and p.in_file:
            start = datetime.combine(day, time(), tzinfo=UTC)
            return {"start": start, "end": start + timedelta(days=1)}
        return {"day": day}

    def partition_values(self) -> str:
        p = self.partitioning
        assert p is not None
        if p.in_file:
            return f"SELECT DISTINCT CAST(timezone('UTC', received_at) AS DATE) FROM {self._quoted()}"
        return f'SELECT DISTINCT "{p.column}" FROM {self._quoted()}'


@dataclass(frozen=True)
class PublishResult:
    partitions_written: int
    partitions_removed: int
    tables_written: int
    serving_path: Path
    # Lake files that were not as this warehouse last published them, written again from it.
    repaired: tuple[str, ...] = ()

    def warning(self) -> str | None:
        """The one line a person sees when the lake had to be repaired, else None."""
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


def remove_unpublished_files(conn: duckdb.DuckDBPyConnection, lake: Path) -> list[str]:
    """Remove every lake file the newest publish did not leave (superseded copies); their paths."""
    return _remove_unpublished(conn, lake, lake_tables(conn))


def lake_tables(conn: duckdb.DuckDBPyConnection) -> list[LakeTable]:
    columns: dict[tuple[str, str], list[tuple[str, str]]] = {}
    for schema, table, column, data_type in run_sql(conn, "warehouse/select_lake_columns.sql", schemas=list(SCHEMAS)):
        columns.setdefault((schema, table), []).append((column, data_type))
    return [LakeTable(s, t, tuple(cols)) for (s, t), cols in columns.items()]


def _write(
    conn: duckdb.DuckDBPyConnection, table: LakeTable, directory: Path, sql: str, params: dict[str, Any] | None
) -> bool:
    """Write the query's rows as directory/data.parquet, aside then renamed; False if none."""
    rows = conn.sql(sql, params=params).to_arrow_table()
    if table.partitioning is not None and rows.num_rows == 0:
        if directory.exists():
            shutil.rmtree(directory)
        return False
    _write_file(rows, directory)
    return True


def _write_empty_partition(
    conn: duckdb.DuckDBPyConnection, table: LakeTable, root: Path, written: Written, *, force: bool
) -> None:
    """The zero-row file every partitioned table keeps, written again when its schema changed,
    when it cannot be read, or when it is not as the last publish left it (`force`)."""
    p = table.partitioning
    assert p is not None
    rows = conn.sql(table.no_rows()).to_arrow_table()
    directory = root / f"{p.column}={EMPTY_PARTITION}"
    path = directory / DATA_FILE
    if force or not _has_schema(path, rows.schema):
        _write_file(rows, directory)
    written.wrote(path)


def _has_schema(path: Path, schema: pa.Schema) -> bool:
    try:
        return bool(pq.read_schema(path).equals(schema, check_metadata=False))
    except (OSError, pa.ArrowException):  # missing, or not Parquet any more: written again
        return False


def _write_file(rows: pa.Table, directory: Path) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    # Not *.parquet: a reader's glob never picks up a file still being written.
    staging = directory / f".{DATA_FILE}.{os.getpid()}.tmp"
    pq.write_table(rows, staging, compression="zstd")
    with staging.open("rb") as handle:
        os.fsync(handle.fileno())
    os.replace(staging, directory / DATA_FILE)


def _write_partitions(
    conn: duckdb.DuckDBPyConnection,
    table: LakeTable,
    lake: Path,
    days: set[date],
    written: Written,
    *,
    full: bool,
    drifted: set[str],
) -> tuple[int, int]:
    """Write the partitions of `days`, and those whose files drifted (values of `drifted`)."""
    p = table.partitioning
    assert p is not None
    root = lake / table.name
    _write_empty_partition(conn, table, root, written, force=EMPTY_PARTITION in drifted)
    if full:
        days = {row[0] for row in conn.execute(table.partition_values()).fetchall()}
        kept = {EMPTY_PARTITION} | {x.isoformat() for x in days}
        stale = [d for d in root.glob(f"{p.column}=*") if d.is_dir() and d.name.split("=", 1)[1] not in kept]
        for directory in stale:
            shutil.rmtree(directory)
            written.removed(directory / DATA_FILE)
    for value in drifted - {EMPTY_PARTITION}:
        try:
            days.add(date.fromisoformat(value))
        except ValueError:  # not a partition this pipeline writes: nothing of the warehouse's
            shutil.rmtree(root / f"{p.column}={value}", ignore_errors=True)
            written.removed(root / f"{p.column}={value}" / DATA_FILE)
    sql = table.select()
    count = removed = 0
    for day in sorted(days):
        directory = root / f"{p.column}={day.isoformat()}"
        if _write(conn, table, directory, sql, table.partition_params(day)):
            written.wrote(directory / DATA_FILE)
            count += 1
        else:
            written.removed(directory / DATA_FILE)
            removed += 1
    return count, removed


def publish(
    conn: duckdb.DuckDBPyConnection, *, lake: Path, serving: Path, full: bool = False, k: int = DEFAULT_K
) -> PublishResult:
    """Write the changed partitions and the small tables to the lake, then the serving database,
    then the aggregate tier (no group under `k` people: aggregate.py) beside them.

    Partition files that are not as this warehouse last published them are written again from
    it too (and named in the result); `full` writes every partition again.
    """
    run_sql(conn, "warehouse/limit_publish.sql")
    changes: dict[str, set[date]] = {}
    for name, day in run_sql(conn, "warehouse/select_lake_changes.sql"):
        changes.setdefault(name, set()).add(day)
    full = full or REWRITE_ALL in changes or not lake.is_dir()
    tables = lake_tables(conn)
    drifted = drifted_files(conn, lake, tables)
    by_table: dict[str, set[str]] = {}
    for path in drifted:
        name, partition, _ = path.split("/")
        by_table.setdefault(name, set()).add(partition.split("=", 1)[1])
    written = Written(lake, {}, set())
    count = removed = whole = 0
    # A reader querying mid-publish sees a day's report rows before the detail rows that hang
    # off them: then a detail is missing (the views show that day's agents once they land),
    # never a detail whose report row is not there yet (which the views would read as a gap).
    for table in sorted(tables, key=lambda t: t.name in _DETAIL_TABLES):
        if table.partitioning is None:
            _write(conn, table, lake / table.name, table.select(), None)
            whole += 1
            continue
        days = {d for d in changes.get(table.name, set()) if d is not None}
        w, r = _write_partitions(
            conn, table, lake, days, written, full=full, drifted=by_table.get(table.name, set())
        )
        count, removed = count + w, removed + r
    record(conn, written, whole=full)
    build_serving(tables, lake=lake, target=serving)
    publish_aggregate(conn, serving=serving, k=k)
    # A whole rewrite was asked for (or the lake is new): no file of it is a surprise.
    repaired = () if full else tuple(path for path in drifted if not asked(path, changes))
    return PublishResult(count, removed, whole, serving, repaired)
