"""The serving database: one view per lake table, typed as in the warehouse, and the bi.* views
(sql/views/, then sql/serving/: what it reads otherwise than the warehouse, bi.chargeback_by_team's
rows as the publish computed them).

It holds views only (a few hundred KB), rebuilt and renamed into place on each publish. Each
table's view reads the files of every version of the lake and keeps the newest version visible
when the query's transaction began (`_versions`): every table of a query reads the same
publish, and a reader holding the database open reads the newest one on its next query.
DuckDB skips the other versions' files without opening them (the filter on the hive column, a
scalar subquery, becomes a join filter applied per file), so they cost a directory listing, not
a read; only a table without rows, whose scan DuckDB 2.0 plans as the join's smaller side, has
its zero-row file opened in every version.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from pipelines._paths import SQL_DIR
from pipelines.publish._published import DATA_FILE
from pipelines.publish._versions import COUNTDOWN, GRACE, KEY, MARKER, wait_until
from pipelines.warehouse.catalog import TABLES
from pipelines.warehouse.sql import connect, run_sql

if TYPE_CHECKING:
    from pipelines.publish._tables import LakeTable

# The catalog's schemas: every table of them is published (a list of its own would miss a new one).
SCHEMAS = tuple(dict.fromkeys(t.schema for t in TABLES))
# The storage format the serving database is written in: DuckDB 2.x writes its own by default,
# which no 1.x opens, and BI drivers (JDBC, Node) still embed 1.x. 'v1.2.0' opens in 1.2.0 and later.
STORAGE_VERSION = "v1.2.0"


def glob_literal(path: str) -> str:
    """The path as a DuckDB file pattern matching only itself: `[`, `?` and `*` in a directory's
    name (a data home called `team [eu]`) would otherwise be read as pattern characters."""
    return "".join(f"[{char}]" if char in "[?*" else char for char in path)


def _literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


_NO_VERSION = (
    "no version of the lake was visible when this transaction began: it began before the first publish, "
    f"or has run longer than the {GRACE.seconds // 60} minutes a superseded version is kept: query again"
)


def newest_visible(versions: str) -> str:
    """The hive value of the newest version visible when the transaction began, or an error."""
    number = f"CAST(regexp_extract(file, '{KEY}=([0-9]+)/{MARKER}$', 1) AS BIGINT)"
    newest = (
        f"SELECT min({number}) FROM glob({_literal(f'{versions}/{MARKER}')}) "
        f"WHERE {COUNTDOWN} - {number} <= epoch_us(current_timestamp)"
    )
    return f"coalesce(({newest}), error({_literal(_NO_VERSION)}))"


def _view(table: LakeTable, lake: Path) -> str:
    """The table as a view over its files in the lake's newest visible version, cast to the warehouse's types."""
    columns = ", ".join(f'CAST("{c}" AS {t}) AS "{c}"' for c, t in table.columns)
    versions = f"{glob_literal(str(lake.resolve()))}/{KEY}=*"
    root = f"{versions}/{table.name}"
    p = table.partitioning
    dated = p is not None and (not p.in_file or p.grain == "month")  # received_day is read as it is
    hive_types = {KEY: "BIGINT"} | ({p.column: "DATE"} if dated and p is not None else {})
    types = ", ".join(f"'{column}': '{kind}'" for column, kind in hive_types.items())
    # Every version holds every table's file (partitioned ones: at least the empty partition's).
    files = f"{root}/{DATA_FILE}" if p is None else f"{root}/*/{DATA_FILE}"
    source = f"read_parquet({_literal(files)}, hive_partitioning = true, hive_types = {{{types}}})"
    return (
        f'CREATE VIEW "{table.schema}"."{table.table}" AS SELECT {columns} FROM {source} '
        f'WHERE "{KEY}" = {newest_visible(versions)}'
    )


def build_serving(tables: list[LakeTable], *, lake: Path, target: Path, not_before: int = 0) -> Path:
    """The serving database: one view per lake table and the bi.* views, renamed into place once
    the lake's version it was built for is visible (`not_before`, microseconds since the epoch):
    its views may read a column that version is the first to have.

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
        # The rules the rollups count by (who is active on any surface) are the views' too.
        for path in sorted((SQL_DIR / "rollups").glob("_*.sql")):
            run_sql(serving, f"rollups/{path.name}")
        for path in sorted((SQL_DIR / "views").glob("*.sql")):
            run_sql(serving, f"views/{path.name}")
        for path in sorted((SQL_DIR / "serving").glob("*.sql")):
            run_sql(serving, f"serving/{path.name}")
        serving.execute("CHECKPOINT")
    with staging.open("rb") as handle:
        os.fsync(handle.fileno())
    wait_until(not_before)
    os.replace(staging, target)
    return target
