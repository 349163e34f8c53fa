"""Versioned migrations: sql/schema/NNN_verb_object.sql, applied once each, in order."""

from __future__ import annotations

import re

import duckdb

from pipelines._paths import SQL_DIR
from pipelines.warehouse._sql import rollback, run_sql

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
    run_sql(conn, "warehouse/ensure_migrations_table.sql")
    applied = {row[0] for row in run_sql(conn, "warehouse/select_applied_migrations.sql")}
    done = []
    for version, name in _migrations():
        if version in applied:
            continue
        # Each migration and its record commit together: a crash never half-applies one.
        conn.execute("BEGIN TRANSACTION")
        try:
            run_sql(conn, f"schema/{name}")
            run_sql(conn, "warehouse/record_migration.sql", version=version, name=name)
            conn.execute("COMMIT")
        except BaseException:
            rollback(conn)
            raise
        done.append(name)
    _create_views(conn)
    return done


def _create_views(conn: duckdb.DuckDBPyConnection) -> None:
    # Views hold no data, so they are recreated on every run to match sql/views/ (in one
    # transaction: a broken view file leaves the previous views in place).
    conn.execute("BEGIN TRANSACTION")
    try:
        for path in sorted((SQL_DIR / "views").glob("*.sql")):
            run_sql(conn, f"views/{path.name}")
        conn.execute("COMMIT")
    except BaseException:
        rollback(conn)
        raise
