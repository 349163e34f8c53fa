"""The Parquet lake BI tools and distributed engines read, and the serving database over it.

Every core, raw, snapshots and events table is written under LAKE_PATH as zstd Parquet. Tables
with a day are hive-partitioned by it (`core.breakdowns/day=2026-11-01/data.parquet`,
snapshots by `snapshot_day`, webhook deliveries by the UTC day they were received); each
partition is written aside and renamed into place, so a reader sees a whole old or a whole new
partition, never half a file. Writers mark the partitions they change in meta.lake_changes (in
their own transactions), and a publish rewrites only those and the small unpartitioned tables:
its cost follows what the run changed, not what the warehouse holds.

The serving database (SERVING_PATH) holds views only: each table reading through to the lake,
typed as in the warehouse, and the bi.* views over them. It is a few hundred KB, rebuilt and
renamed into place on each publish; a reader holding it open reads the lake's newest files on
its next query, since the views list the files when they run.

Each partitioned table also holds a zero-row file with its schema in the partition Hive names
for NULL (`day=__HIVE_DEFAULT_PARTITION__/data.parquet`). So a table's glob matches from the first
publish on, even before it has a day, and its view is the same read_parquet then as later: a
connection held across the publish that gives the table its first day sees that day. DuckDB,
Polars, PyArrow, Spark and Trino read that partition as NULL and find no rows in it.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq

from pipelines._paths import SQL_DIR
from pipelines.warehouse.sql import connect, run_sql

SCHEMAS = ("core", "raw", "snapshots", "events")
DATA_FILE = "data.parquet"
REWRITE_ALL = "*"  # a meta.lake_changes row naming this: every table is written again
EMPTY_PARTITION = "__HIVE_DEFAULT_PARTITION__"  # Hive's name for a NULL partition value


@dataclass(frozen=True)
class Partitioning:
    column: str  # the hive column in the lake's paths
    in_file: bool  # False: the table's own column, kept in the path only (hive style)


# Tables partitioned by a day; every other table of SCHEMAS is small and written whole.
_PARTITIONS: dict[str, Partitioning] = {
    **{f"core.{t}": Partitioning("day", in_file=False)
       for t in ("daily_totals", "user_daily_totals", "breakdowns", "agent_activity", "agent_days",
                 "user_team_days", "team_days")},
    **{f"snapshots.{t}": Partitioning("snapshot_day", in_file=False)
       for t in ("repositories", "repository_stats", "issues", "org_members", "seats", "seat_totals", "warnings")},
    "events.webhook_deliveries": Partitioning("received_day", in_file=True),
    "raw.report_fetches": Partitioning("day", in_file=False),
}


# Published after the other tables (see publish): rows that detail a day's report rows.
_DETAIL_TABLES = frozenset(
    {"core.agent_activity", "core.agent_days", "core.breakdowns", "core.user_team_days", "core.team_days"}
)


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


def _write_empty_partition(conn: duckdb.DuckDBPyConnection, table: LakeTable, root: Path) -> None:
    """The zero-row file every partitioned table keeps, written again only when its schema changed."""
    p = table.partitioning
    assert p is not None
    rows = conn.sql(table.no_rows()).to_arrow_table()
    directory = root / f"{p.column}={EMPTY_PARTITION}"
    path = directory / DATA_FILE
    if not path.is_file() or not pq.read_schema(path).equals(rows.schema, check_metadata=False):
        _write_file(rows, directory)


def _write_file(rows: pa.Table, directory: Path) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    # Not *.parquet: a reader's glob never picks up a file still being written.
    staging = directory / f".{DATA_FILE}.{os.getpid()}.tmp"
    pq.write_table(rows, staging, compression="zstd")
    with staging.open("rb") as handle:
        os.fsync(handle.fileno())
    os.replace(staging, directory / DATA_FILE)


def _write_partitions(
    conn: duckdb.DuckDBPyConnection, table: LakeTable, lake: Path, days: set[date], *, full: bool
) -> tuple[int, int]:
    p = table.partitioning
    assert p is not None
    root = lake / table.name
    _write_empty_partition(conn, table, root)
    if full:
        days = {row[0] for row in conn.execute(table.partition_values()).fetchall()}
        kept = {EMPTY_PARTITION} | {x.isoformat() for x in days}
        stale = [d for d in root.glob(f"{p.column}=*") if d.is_dir() and d.name.split("=", 1)[1] not in kept]
        for directory in stale:
            shutil.rmtree(directory)
    sql = table.select()
    written = removed = 0
    for day in sorted(days):
        if _write(conn, table, root / f"{p.column}={day.isoformat()}", sql, table.partition_params(day)):
            written += 1
        else:
            removed += 1
    return written, removed


def publish(conn: duckdb.DuckDBPyConnection, *, lake: Path, serving: Path) -> PublishResult:
    """Write the changed partitions and the small tables to the lake, then the serving database."""
    run_sql(conn, "warehouse/limit_publish.sql")
    changes: dict[str, set[date]] = {}
    for name, day in run_sql(conn, "warehouse/select_lake_changes.sql"):
        changes.setdefault(name, set()).add(day)
    full = REWRITE_ALL in changes or not lake.is_dir()
    tables = lake_tables(conn)
    written = removed = whole = 0
    # A reader querying mid-publish sees a day's report rows before the detail rows that hang
    # off them: then a detail is missing (the views show that day's agents once they land),
    # never a detail whose report row is not there yet (which the views would read as a gap).
    for table in sorted(tables, key=lambda t: t.name in _DETAIL_TABLES):
        if table.partitioning is None:
            _write(conn, table, lake / table.name, table.select(), None)
            whole += 1
            continue
        days = {d for d in changes.get(table.name, set()) if d is not None}
        w, r = _write_partitions(conn, table, lake, days, full=full)
        written, removed = written + w, removed + r
    # Every partition asked for is written: forget the marks (this process is the only writer).
    run_sql(conn, "warehouse/clear_lake_changes.sql")
    build_serving(tables, lake=lake, target=serving)
    return PublishResult(written, removed, whole, serving)


def _literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _view(table: LakeTable, lake: Path) -> str:
    """The table as a view over its lake files, cast to the warehouse's types."""
    columns = ", ".join(f'CAST("{c}" AS {t}) AS "{c}"' for c, t in table.columns)
    root = lake.resolve() / table.name
    p = table.partitioning
    # publish wrote every table's file (partitioned ones: at least the empty partition's) first.
    if p is None:
        source = f"read_parquet({_literal(str(root / DATA_FILE))})"
    else:
        hive_type = "" if p.in_file else f", hive_types = {{'{p.column}': 'DATE'}}"
        source = f"read_parquet({_literal(str(root / '*' / DATA_FILE))}, hive_partitioning = true{hive_type})"
    return f'CREATE VIEW "{table.schema}"."{table.table}" AS SELECT {columns} FROM {source}'


def build_serving(tables: list[LakeTable], *, lake: Path, target: Path) -> Path:
    """The serving database: one view per lake table and the bi.* views, renamed into place.

    View definitions are DDL: the lake's paths are written into them as quoted literals (a view
    cannot hold bound parameters), so the serving database names the lake by absolute path.
    """
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = target.with_name(f".{target.name}.next")
    staging.unlink(missing_ok=True)
    with connect(staging) as serving:
        for schema in (*SCHEMAS, "bi"):
            serving.execute(f'CREATE SCHEMA IF NOT EXISTS "{schema}"')
        for table in tables:
            serving.execute(_view(table, lake))
        for path in sorted((SQL_DIR / "views").glob("*.sql")):
            run_sql(serving, f"views/{path.name}")
        serving.execute("CHECKPOINT")
    with staging.open("rb") as handle:
        os.fsync(handle.fileno())
    os.replace(staging, target)
    return target
