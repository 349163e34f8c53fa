"""The column declarations against the migrated warehouse: migrations and catalog agree, and a
table no migration creates is built from its declaration alone."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import duckdb
import pytest

from pipelines.transform.columns import table_columns
from pipelines.warehouse import migrate
from pipelines.warehouse.catalog import TABLES
from pipelines.warehouse.migrate import _declared_tables

SCHEMAS = sorted({t.schema for t in TABLES})


def _shape(conn: duckdb.DuckDBPyConnection) -> dict[str, list[tuple[Any, ...]]]:
    """Each table of the catalog's schemas: its columns in order, with type, nullability and default."""
    out: dict[str, list[tuple[Any, ...]]] = {}
    for schema, table, *column in conn.execute(
        "SELECT table_schema, table_name, column_name, data_type, is_nullable, column_default"
        " FROM information_schema.columns"
        " JOIN information_schema.tables USING (table_catalog, table_schema, table_name)"
        " WHERE table_type = 'BASE TABLE' AND table_schema IN ? ORDER BY table_schema, table_name, ordinal_position",
        [SCHEMAS],
    ).fetchall():
        out.setdefault(f"{schema}.{table}", []).append(tuple(column))
    return out


def _keys(conn: duckdb.DuckDBPyConnection) -> dict[str, tuple[str, ...]]:
    return {
        f"{s}.{t}": tuple(cols)
        for s, t, cols in conn.execute(
            "SELECT schema_name, table_name, constraint_column_names FROM duckdb_constraints()"
            " WHERE constraint_type = 'PRIMARY KEY' AND schema_name IN ?",
            [SCHEMAS],
        ).fetchall()
    }


def _declared(name: str, primary_key: tuple[str, ...]) -> list[tuple[Any, ...]]:
    return [
        (c.name, c.type, "NO" if c.not_null or c.name in primary_key else "YES", c.default) for c in table_columns(name)
    ]


@pytest.fixture(scope="module")
def migrated() -> duckdb.DuckDBPyConnection:
    conn = duckdb.connect()
    migrate(conn)
    return conn


def test_every_table_of_a_fresh_warehouse_has_the_columns_types_and_defaults_its_declaration_says(
    migrated: duckdb.DuckDBPyConnection,
) -> None:
    shape = _shape(migrated)
    for t in TABLES:
        assert shape.get(t.name) == _declared(t.name, t.primary_key), f"{t.name}: migrations and declaration differ"


def test_no_table_in_the_catalog_s_schemas_lacks_a_declaration(migrated: duckdb.DuckDBPyConnection) -> None:
    assert set(_shape(migrated)) == {t.name for t in TABLES}


def test_a_table_s_primary_key_is_its_grain_unless_declared_unkeyed(migrated: duckdb.DuckDBPyConnection) -> None:
    assert _keys(migrated) == {t.name: t.grain for t in TABLES if t.keyed}


def test_every_table_built_from_its_declaration_alone_equals_the_migrated_one(
    migrated: duckdb.DuckDBPyConnection,
) -> None:
    # What a new table gets: its DDL derived from the declaration, no migration.
    derived = duckdb.connect()
    for schema in SCHEMAS:
        derived.execute(f"CREATE SCHEMA {schema}")
    assert _declared_tables(derived) == [f"table {t.name}" for t in TABLES]
    assert _shape(derived) == _shape(migrated)
    assert _keys(derived) == _keys(migrated)


def test_migrate_creates_a_catalog_table_no_migration_created_from_its_declaration(tmp_path: Path) -> None:
    conn = duckdb.connect(str(tmp_path / "w.duckdb"))
    migrate(conn)
    before = _shape(conn)["core.team_days"]
    conn.execute("DROP TABLE core.team_days")
    assert migrate(conn) == ["table core.team_days"]
    assert _shape(conn)["core.team_days"] == before
    assert _keys(conn)["core.team_days"] == ("scope", "scope_name", "day", "team_id")
    assert migrate(conn) == []
