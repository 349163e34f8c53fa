"""The aggregate tier: numbers without people, for a BI tool a wide audience reads (docs/privacy.md).

Each publish computes its tables from the warehouse with SQL (`sql/aggregate/`), writes them
whole into a lake of their own (`aggregate/lake/<table>/data.parquet` beside SERVING_PATH, each
file replaced whole by a rename) and builds a serving database of views over them
(`aggregate/serving-aggregate.duckdb`), renamed into place as the full one is. One directory
holds the whole tier, so one permission on it opens the tier to its audience and nothing else. It holds no login, no
user id, and no figure about fewer than k people: such a row stays, marked `suppressed`, with
every figure NULL. A few rows per scope and day, so writing them whole costs little.
"""

from __future__ import annotations

import os
from pathlib import Path

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq

from pipelines._paths import SQL_DIR
from pipelines.warehouse._published import DATA_FILE
from pipelines.warehouse._serving import STORAGE_VERSION, glob_literal
from pipelines.warehouse.sql import connect, run_sql

__all__ = [
    "AGGREGATE_TABLES", "DEFAULT_K", "aggregate_lake", "aggregate_serving", "build_views", "publish_aggregate",
    "write_aside",
]

DIRECTORY = "aggregate"  # beside SERVING_PATH

DEFAULT_K = 5
SCHEMA = "aggregate"
AGGREGATE_TABLES = tuple(sorted(path.stem for path in (SQL_DIR / "aggregate").glob("*.sql")))


def aggregate_lake(serving: Path) -> Path:
    return serving.parent / DIRECTORY / "lake"


def aggregate_serving(serving: Path) -> Path:
    return serving.parent / DIRECTORY / f"{serving.stem}-aggregate{serving.suffix}"


def publish_aggregate(conn: duckdb.DuckDBPyConnection, *, serving: Path, k: int = DEFAULT_K) -> Path:
    """Write the aggregate tables and their serving database into the directory beside `serving`."""
    root = aggregate_lake(serving)
    for name in AGGREGATE_TABLES:
        run_sql(conn, f"aggregate/{name}.sql", k=k)
        write_aside(conn.sql(f"SELECT * FROM aggregate_{name}").to_arrow_table(), root / name)
        conn.execute(f"DROP TABLE aggregate_{name}")
    return build_views(root, aggregate_serving(serving), schema=SCHEMA, names=AGGREGATE_TABLES)


def build_views(
    root: Path, target: Path, *, schema: str, names: tuple[str, ...], partitioned: dict[str, str] | None = None
) -> Path:
    """A database of one view per table over its file under `root`, in `schema`, renamed into
    place (as _serving.build_serving). A table of `partitioned` is one file per value of its
    column (`<table>/<column>=<value>/data.parquet`), a DATE read from the directory's name."""
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = target.with_name(f".{target.name}.next")
    staging.unlink(missing_ok=True)
    with connect(":memory:") as serving:
        # Readable by the DuckDB 1.x that BI drivers embed, as the serving database is.
        quoted = str(staging).replace("'", "''")
        serving.execute(f"ATTACH '{quoted}' AS tier (STORAGE_VERSION '{STORAGE_VERSION}')")
        serving.execute("USE tier")
        serving.execute(f'CREATE SCHEMA "{schema}"')
        for name in names:
            # A view's DDL holds no parameters: the path is a quoted literal, as in _serving.
            column = (partitioned or {}).get(name)
            files = glob_literal(str(root.resolve() / name)) + (f"/*/{DATA_FILE}" if column else f"/{DATA_FILE}")
            source = "'" + files.replace("'", "''") + "'"
            columns = "*"
            if column:
                source += f", hive_partitioning = true, hive_types = {{'{column}': 'DATE'}}"
                columns = f'"{column}", * EXCLUDE ("{column}")'  # first, where the files' order would put it last
            serving.execute(f'CREATE VIEW "{schema}"."{name}" AS SELECT {columns} FROM read_parquet({source})')
        serving.execute("CHECKPOINT")
    with staging.open("rb") as handle:
        os.fsync(handle.fileno())
    os.replace(staging, target)
    return target


def write_aside(rows: pa.Table, directory: Path) -> None:
    """`directory`/data.parquet replaced whole: written under a name no reader's glob matches,
    fsync'd, then renamed over the last one, so a reader sees the old file or the new one."""
    directory.mkdir(parents=True, exist_ok=True)
    staging = directory / f".{DATA_FILE}.{os.getpid()}.tmp"
    pq.write_table(rows, staging, compression="zstd")
    with staging.open("rb") as handle:
        os.fsync(handle.fileno())
    os.replace(staging, directory / DATA_FILE)
