"""The serving database: one view per lake table, typed as in the warehouse, and the bi.* views.

It holds views only (a few hundred KB), rebuilt and renamed into place on each publish; a reader
holding it open reads the lake's newest files on its next query, since the views list the
files when they run.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from pipelines._paths import SQL_DIR
from pipelines.warehouse._published import DATA_FILE
from pipelines.warehouse.sql import connect, run_sql

if TYPE_CHECKING:
    from pipelines.warehouse.lake import LakeTable

SCHEMAS = ("core", "raw", "snapshots", "events")
# The storage format the serving database is written in: DuckDB 2.x writes its own by default,
# which no 1.x opens, and BI drivers (JDBC, Node) still embed 1.x. 'v1.2.0' opens in 1.2.0 and later.
STORAGE_VERSION = "v1.2.0"


def glob_literal(path: str) -> str:
    """The path as a DuckDB file pattern matching only itself: `[`, `?` and `*` in a directory's
    name (a data home called `team [eu]`) would otherwise be read as pattern characters."""
    return "".join(f"[{char}]" if char in "[?*" else char for char in path)


def _literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _view(table: LakeTable, lake: Path) -> str:
    """The table as a view over its lake files, cast to the warehouse's types."""
    columns = ", ".join(f'CAST("{c}" AS {t}) AS "{c}"' for c, t in table.columns)
    root = glob_literal(str(lake.resolve() / table.name))
    p = table.partitioning
    # publish wrote every table's file (partitioned ones: at least the empty partition's) first.
    if p is None:
        source = f"read_parquet({_literal(f'{root}/{DATA_FILE}')})"
    else:
        hive_type = "" if p.in_file else f", hive_types = {{'{p.column}': 'DATE'}}"
        source = f"read_parquet({_literal(f'{root}/*/{DATA_FILE}')}, hive_partitioning = true{hive_type})"
    return f'CREATE VIEW "{table.schema}"."{table.table}" AS SELECT {columns} FROM {source}'


def build_serving(tables: list[LakeTable], *, lake: Path, target: Path) -> Path:
    """The serving database: one view per lake table and the bi.* views, renamed into place.

    View definitions are DDL: the lake's paths are written into them as quoted literals (a view
    cannot hold bound parameters), so the serving database names the lake by absolute path.
    """
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = target.with_name(f".{target.name}.next")
    staging.unlink(missing_ok=True)
    with connect(":memory:") as serving:
        # A storage version is an ATTACH option: the file is attached, not opened, to set it.
        serving.execute(f"ATTACH {_literal(str(staging))} AS serving (STORAGE_VERSION {_literal(STORAGE_VERSION)})")
        serving.execute("USE serving")
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
