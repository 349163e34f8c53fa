"""Versioned migrations: sql/schema/NNN_verb_object.sql, applied once each, in order.

Their bookkeeping (what was applied, the views' checksum) is in sql/migrations/.

The views in sql/views/ are part of the schema too: they are (re)created when a migration was
applied or their files changed (a checksum kept in meta.view_definitions), never on a run that
changes neither.
"""

from __future__ import annotations

import hashlib
import re

import duckdb

from pipelines._paths import SQL_DIR
from pipelines.transform.columns import table_ddl
from pipelines.transform.schema import declared_columns, duckdb_type
from pipelines.warehouse.billing_model_names import refresh_billing_models
from pipelines.warehouse.catalog import TABLES
from pipelines.warehouse.incidents import refresh_incidents
from pipelines.warehouse.rollups import rebuild_rollups, rollups_stale
from pipelines.warehouse.sql import rollback, run_sql
from pipelines.warehouse.vendor_agents import refresh_agent_vendors

_MIGRATION = re.compile(r"^(\d{3})_[a-z0-9_]+\.sql$")


def _migrations() -> list[tuple[int, str]]:
    found = []
    for path in (SQL_DIR / "schema").iterdir():
        match = _MIGRATION.match(path.name)
        if match:
            found.append((int(match.group(1)), path.name))
    return sorted(found)


def migrate(conn: duckdb.DuckDBPyConnection) -> list[str]:
    """Apply the migrations not yet recorded in meta.schema_migrations; returns their names."""
    applied = {row[0] for row in run_sql(conn, "migrations/select_applied_migrations.sql")}
    done = []
    for version, name in _migrations():
        if version in applied:
            continue
        # Each migration and its record commit together: a crash never half-applies one.
        conn.execute("BEGIN TRANSACTION")
        try:
            run_sql(conn, f"schema/{name}")
            run_sql(conn, "migrations/record_migration.sql", version=version, name=name)
            conn.execute("COMMIT")
        except BaseException:
            rollback(conn)
            raise
        done.append(name)
    done += _declared_tables(conn)
    done += _declared_columns(conn)
    refresh_incidents(conn)  # the declared service incidents (small: written whole by each publish)
    refresh_billing_models(conn)  # the declared map of the bill's model names (likewise)
    refresh_agent_vendors(conn)  # the declared agent map (likewise)
    if done:
        run_sql(conn, "migrations/mark_lake_rewrite.sql")
    # After the migrations (a new rollup's table), before the views that read the rollups.
    if rollups_stale(conn):
        rebuild_rollups(conn)
    checksum = _views_checksum()
    if done or run_sql(conn, "migrations/select_view_checksum.sql") != [(checksum,)]:
        _create_views(conn, checksum)
    return done


def _declared_tables(conn: duckdb.DuckDBPyConnection) -> list[str]:
    """Create each catalog table the migrations did not, from its declaration; what was created.

    A new table is its declaration alone: migrations are for changing the tables that exist.
    """
    have = {name for (name,) in run_sql(conn, "migrations/select_tables.sql")}  # one query: every run does this
    created = []
    for t in TABLES:
        if t.name in have:
            continue
        run_sql(
            conn,
            "migrations/create_declared_table.sql",
            identifiers={"schema": t.schema, "table": t.name, "columns": table_ddl(t.name, t.primary_key)},
        )
        created.append(f"table {t.name}")
    return created


def _declared_columns(conn: duckdb.DuckDBPyConnection) -> list[str]:
    """Add each declared column its table lacks (schema.declared_columns); what was added.

    Additive and nullable, so rows already landed are not rewritten: they read NULL there (the
    field was not declared when they landed; its value, if any, is in their `extra`).
    """
    added = []
    for name, columns in declared_columns().items():
        schema, table = name.split(".")
        have = {row[0] for row in run_sql(conn, "migrations/select_table_columns.sql", schema=schema, table=table)}
        for column, dtype in columns.items():
            if column in have:
                continue
            kind = duckdb_type(dtype)
            conn.execute("BEGIN TRANSACTION")
            try:
                run_sql(
                    conn,
                    "migrations/add_declared_column.sql",
                    identifiers={"schema": schema, "table": table, "column": column, "type": kind},
                    table_name=f"{schema}.{table}",
                    column_name=column,
                    data_type=kind,
                )
                conn.execute("COMMIT")
            except BaseException:
                rollback(conn)
                raise
            added.append(f"column {schema}.{table}.{column} {kind}")
    return added


def _views_checksum() -> str:
    digest = hashlib.sha256()
    for path in sorted((SQL_DIR / "views").glob("*.sql")):
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def _create_views(conn: duckdb.DuckDBPyConnection, checksum: str) -> None:
    # One transaction: a broken view file leaves the previous views (and checksum) in place.
    conn.execute("BEGIN TRANSACTION")
    try:
        for path in sorted((SQL_DIR / "views").glob("*.sql")):
            run_sql(conn, f"views/{path.name}")
        run_sql(conn, "migrations/record_view_checksum.sql", checksum=checksum)
        conn.execute("COMMIT")
    except BaseException:
        rollback(conn)
        raise
