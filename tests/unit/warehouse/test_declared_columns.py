"""Every declared record field has its column in the totals tables of its levels, with its type,
and a field declared later gains its column on the next migrate: added nullable, recorded,
with the rows already landed kept as they were."""

from __future__ import annotations

import duckdb
import polars as pl
import pytest

from pipelines.transform import schema
from pipelines.transform.schema import AGGREGATE, USER, duckdb_type, totals_columns
from pipelines.warehouse import migrate


def _columns(conn: duckdb.DuckDBPyConnection, table: str) -> dict[str, str]:
    schema_name, name = table.split(".")
    return dict(
        conn.execute(
            "SELECT column_name, data_type FROM duckdb_columns() WHERE schema_name = ? AND table_name = ?",
            [schema_name, name],
        ).fetchall()
    )


@pytest.mark.parametrize(("table", "level"), [("core.daily_totals", AGGREGATE), ("core.user_daily_totals", USER)])
def test_every_declared_field_has_its_column_with_its_type(table: str, level: str) -> None:
    with duckdb.connect() as conn:
        migrate(conn)
        have = _columns(conn, table)
    for column, dtype in totals_columns(level).items():
        assert have.get(column) == duckdb_type(dtype), f"{table}.{column}"


def test_a_field_declared_later_gains_its_column_on_the_next_migrate(monkeypatch: pytest.MonkeyPatch) -> None:
    with duckdb.connect() as conn:
        migrate(conn)
        conn.execute("DELETE FROM meta.lake_changes")
        conn.execute(
            "INSERT INTO core.user_daily_totals (scope, scope_name, day, report_kind, user_id, user_login, "
            "agent_breakdown_present, fetched_at, is_final) "
            "VALUES ('organization', 'acme', DATE '2026-11-01', '1-day', 7, 'ada', false, now(), true)"
        )
        monkeypatch.setitem(schema.RECORD_FIELDS, "used_copilot_app", (pl.Boolean(), frozenset({USER})))
        added = migrate(conn)
        assert added == ["column core.user_daily_totals.used_copilot_app BOOLEAN"]
        assert "used_copilot_app" not in _columns(conn, "core.daily_totals")  # not an aggregate field
        assert conn.execute("SELECT user_login, used_copilot_app FROM core.user_daily_totals").fetchall() == [
            ("ada", None)
        ]
        assert conn.execute(
            "SELECT table_name, column_name, data_type FROM meta.declared_columns"
            " WHERE column_name = 'used_copilot_app'"
        ).fetchall() == [("core.user_daily_totals", "used_copilot_app", "BOOLEAN")]
        # The lake is written again once, so the serving views carry the column; a second migrate adds nothing.
        assert conn.execute("SELECT table_name FROM meta.lake_changes").fetchall() == [("*",)]
        assert migrate(conn) == []
