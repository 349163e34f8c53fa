"""The catalog of tables against the migrated warehouse, the Dagster graph and the docs."""

from __future__ import annotations

import re
from datetime import date
from pathlib import Path

import duckdb
import pytest

from pipelines.config import Secret, Settings
from pipelines.definitions import build_definitions
from pipelines.warehouse import migrate
from pipelines.warehouse.catalog import TABLES, markdown, tables
from pipelines.warehouse.replace import LANDINGS, REPLACES, _delete_replaced, _replaced
from pipelines.warehouse.sql import run_sql

ROOT = Path(__file__).resolve().parents[3]
SCHEMAS = tuple(dict.fromkeys(t.schema for t in TABLES))


@pytest.fixture(scope="module")
def warehouse() -> duckdb.DuckDBPyConnection:
    conn = duckdb.connect()
    migrate(conn)
    return conn


def _columns(conn: duckdb.DuckDBPyConnection) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for schema, table, column in conn.execute(
        "SELECT schema_name, table_name, column_name FROM duckdb_columns() WHERE schema_name IN ?", [list(SCHEMAS)]
    ).fetchall():
        out.setdefault(f"{schema}.{table}", set()).add(column)
    return out


def test_the_catalog_names_every_table_the_warehouse_has_and_no_other(warehouse: duckdb.DuckDBPyConnection) -> None:
    have = {
        f"{s}.{t}"
        for s, t in warehouse.execute(
            "SELECT schema_name, table_name FROM duckdb_tables() WHERE schema_name IN ?", [list(SCHEMAS)]
        ).fetchall()
    }
    assert {t.name for t in TABLES} == have


def test_each_table_s_grain_partition_and_counters_are_its_columns_and_its_primary_key(
    warehouse: duckdb.DuckDBPyConnection,
) -> None:
    columns = _columns(warehouse)
    keys = {
        f"{s}.{t}": tuple(cols)
        for s, t, cols in warehouse.execute(
            "SELECT schema_name, table_name, constraint_column_names FROM duckdb_constraints()"
            " WHERE constraint_type = 'PRIMARY KEY'"
        ).fetchall()
    }
    for t in TABLES:
        have = columns[t.name]
        assert set(t.grain) <= have, t.name
        assert set(t.counters) <= have and set(t.label) <= set(t.grain), t.name
        if t.partition is not None:
            assert (t.partition in have) != t.partition_in_file, t.name
        if t.name in keys:
            assert set(keys[t.name]) == set(t.grain), t.name


# A column named like a user id or a login holds a person, but these, which name an
# organization (the snapshot's organization, a seat's granting one, a repository's owner).
_PERSON_LIKE = re.compile(r"(^|_)(user_id|member_id|login)$")
_ORGANIZATIONS = {"org_login", "organization_login", "owner_login"}


def test_every_table_with_a_column_naming_a_person_declares_it(warehouse: duckdb.DuckDBPyConnection) -> None:
    # Erasure and retention act on the declared columns only: an undeclared one would keep the person.
    columns = _columns(warehouse)
    for t in TABLES:
        person_like = {c for c in columns[t.name] if _PERSON_LIKE.search(c)} - _ORGANIZATIONS
        declared = set(t.person or ()) | ({t.vendor_id} if t.vendor_id else set())
        if t.person_where is not None:  # named for every row, a person on some only (resource_name)
            declared = {c for c in declared if _PERSON_LIKE.search(c)}
            assert t.person_where[0] in columns[t.name], t.name
        assert person_like == declared, f"{t.name}: declare Table.person for {sorted(person_like)}"
        if t.person is not None:
            assert t.partition in columns[t.name], f"{t.name}: erasure and retention select its rows by day"


def test_every_email_column_is_declared_and_every_vendor_table_names_its_person(
    warehouse: duckdb.DuckDBPyConnection,
) -> None:
    # Erasure finds a person's emails, and their vendor rows, by the declared columns only.
    columns = _columns(warehouse)
    for t in TABLES:
        emails = {c for c in columns[t.name] if c.endswith("email")}
        assert emails == ({t.email} if t.email else set()), f"{t.name}: declare Table.email for {sorted(emails)}"
        if t.schema == "vendors" and t.name != "vendors.fetches":
            assert t.email is not None and t.partition in columns[t.name], t.name


# A list column named like people it holds (a budget's alert recipients): logins, unless declared.
_PEOPLE_LIST = re.compile(r"(recipients|logins|users|members|assignees|reviewers|authors)$")


def test_every_list_of_logins_is_declared(warehouse: duckdb.DuckDBPyConnection) -> None:
    # Erasure takes a login out of the declared lists only (Table.login_lists): one left
    # undeclared would keep the person (a budget's alert recipients did).
    lists = {
        (f"{schema}.{name}", column)
        for schema, name, column in warehouse.sql(
            "SELECT table_schema, table_name, column_name FROM information_schema.columns"
            " WHERE data_type = 'VARCHAR[]' AND table_schema <> 'bi'"
        ).fetchall()
    }
    declared = {(t.name, column) for t in TABLES for column in t.login_lists}
    assert declared <= lists
    assert {place for place in lists if _PEOPLE_LIST.search(place[1])} <= declared
    assert ("billing.budgets", "alert_recipients") in declared


def test_the_dagster_assets_of_each_concern_are_the_catalog_s(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SERVICE_TOKEN", "catalog-test-token")  # Dagster reads secrets from the environment
    settings = Settings(base_url="http://127.0.0.1:9", token=Secret("catalog-test-token"), orgs=("acme",))
    keys = {key.to_user_string() for key in build_definitions(settings).resolve_all_asset_keys()}
    for concern in {t.asset for t in TABLES if t.asset is not None}:
        for t in tables(asset=concern):
            assert f"{t.schema}/{t.table}" in keys, t.name
    declared = {f"{t.schema}/{t.table}" for t in TABLES}
    undeclared = {k for k in keys if k.split("/")[0] in SCHEMAS} - declared
    assert not undeclared


def test_the_docs_table_of_tables_is_the_catalog_rendered() -> None:
    text = (ROOT / "docs" / "architecture.md").read_text()
    block = text.split("<!-- tables -->\n")[1].split("\n<!-- /tables -->")[0]
    assert block == markdown(), "paste pipelines.warehouse.catalog.markdown() between the markers"


def test_every_table_a_landing_writes_declares_how_a_batch_lands_and_what_a_refetch_replaces() -> None:
    for t in TABLES:
        if t.writer == "report":
            assert t.landing in LANDINGS, t.name
        assert t.replaces is None or t.replaces in REPLACES, t.name


@pytest.mark.parametrize("level", ["aggregate", "user", "user-teams", "repos"])
def test_the_catalog_s_replace_and_discard_statements_bind_on_the_warehouse(level: str) -> None:
    conn = duckdb.connect()
    migrate(conn)
    params = {
        "scope": "organization",
        "scope_name": "acme",
        "report_kind": "1-day",
        "level": level,
        "start_day": date(2026, 1, 1),
        "end_day": date(2026, 1, 1),
    }
    run_sql(conn, "warehouse/begin_report_landing.sql", **params)
    _delete_replaced(conn, params)  # every declared rule, filled with its table, binds
    replaced = {t.name for t in _replaced(level)}
    if level == "user-teams":
        assert replaced == {"core.user_team_days", "core.team_days", "raw.report_files", "raw.quarantine"}
    elif level == "repos":
        assert replaced == {
            "core.repository_days",
            "core.repository_review_times",
            "core.repository_comment_types",
            "raw.report_files",
            "raw.quarantine",
        }
    else:
        assert {
            "core.agent_days",
            "core.breakdowns",
            "core.agent_activity",
            "raw.report_files",
            "raw.field_drift",
            "raw.quarantine",
        } <= replaced
        assert ("core.user_daily_totals" in replaced) == (level == "user")
        assert ("core.daily_totals" in replaced) == (level == "aggregate")
