"""Erasure of one person from the billing tables, derived from the catalog's person columns: their
billed lines, budget user states and cost-center membership go, their login leaves budgets'
alert recipients (the catalog's list columns of logins); anyone else's rows, a team or
organization resource spelled like their login, and the scope's bill stay."""

from __future__ import annotations

from datetime import UTC, date, datetime
from decimal import Decimal
from pathlib import Path

import duckdb
import polars as pl

from pipelines.ingest.forgotten import without_forgotten
from pipelines.privacy import apply_retention
from pipelines.privacy.forget import Places, forget
from pipelines.transform.billing_state import budgets_frame
from pipelines.warehouse.erasure import PERSON_TABLES, Forgotten, Person, erase_rows, person_hashes
from pipelines.warehouse.erasure_person import find_person
from pipelines.warehouse.erasure_text import erase_from_text

DAY = date(2026, 11, 3)
SNAP = date(2026, 11, 27)


def _land(conn: duckdb.DuckDBPyConnection) -> None:
    for login, net in (("ann", "1.25"), ("bob", "2.50")):
        conn.execute(
            "INSERT INTO billing.user_usage (scope, scope_name, day, user_login, product, sku, model, organization,"
            " cost_center_name, quantity, net_amount, month_closed, fetched_at)"
            " VALUES ('enterprise', 'big', ?, ?, 'assistant', 'assistant_ai_credit', 'GPT-5.2', 'acme', 'Platform',"
            " 125, ?, FALSE, now())",
            [DAY, login, Decimal(net)],
        )
        conn.execute(
            "INSERT INTO billing.budget_user_states (snapshot_day, enterprise, budget_id, user_login, consumed_amount,"
            " target_amount, fetched_at) VALUES (?, 'big', 'b-1', ?, 3, 10, now())",
            [SNAP, login],
        )
    for kind, name in (("User", "ann"), ("Team", "ann"), ("Organization", "acme"), ("User", "bob")):
        conn.execute(
            "INSERT INTO billing.cost_center_resources (snapshot_day, enterprise, cost_center_id, resource_type,"
            " resource_name, fetched_at) VALUES (?, 'big', 'cc-1', ?, ?, now())",
            [SNAP, kind, name],
        )
    conn.execute(
        "INSERT INTO billing.budgets (snapshot_day, enterprise, budget_id, budget_scope, budget_entity_name,"
        " user_login, budget_amount, fetched_at) VALUES (?, 'big', 'b-ann', 'user', 'ann', 'ann', 50, now())",
        [SNAP],
    )
    conn.execute(
        "INSERT INTO billing.credit_usage (scope, scope_name, day, meter, product, sku, model, net_amount,"
        " month_closed, fetched_at) VALUES ('enterprise', 'big', ?, 'ai_credit', 'assistant', 'assistant_ai_credit',"
        " 'GPT-5.2', 3.75, FALSE, now())",
        [DAY],
    )


def test_the_billing_tables_naming_people_are_erased_by_their_declaration():
    names = {t.name for t in PERSON_TABLES}
    assert {"billing.user_usage", "billing.budget_user_states", "billing.cost_center_resources"} <= names


def test_forget_removes_the_person_s_billing_rows_and_nothing_of_anyone_else(conn):
    _land(conn)
    person = find_person(conn, "ANN")
    assert person == Person(None, "ann")
    conn.execute("BEGIN TRANSACTION")
    erased = erase_rows(conn, person)
    erase_from_text(conn, person)
    conn.execute("COMMIT")
    assert erased.rows == {
        "billing.user_usage": 1,
        "billing.budget_user_states": 1,
        "billing.cost_center_resources": 1,
        "billing.budgets": 1,
    }
    assert conn.sql("SELECT user_login, net_amount FROM billing.user_usage").fetchall() == [("bob", Decimal("2.5"))]
    assert conn.sql("SELECT user_login FROM billing.budget_user_states").fetchall() == [("bob",)]
    assert sorted(conn.sql("SELECT resource_type, resource_name FROM billing.cost_center_resources").fetchall()) == [
        ("Organization", "acme"),
        ("Team", "ann"),
        ("User", "bob"),
    ]
    # The user's budget is the enterprise's: it stays, without them.
    assert conn.sql("SELECT budget_id, user_login, budget_entity_name FROM billing.budgets").fetchall() == [
        ("b-ann", None, "[erased]")
    ]
    # The bill is the scope's aggregate: untouched.
    assert conn.sql("SELECT sum(net_amount) FROM billing.credit_usage").fetchall() == [(Decimal("3.75"),)]
    marked = {row[0] for row in conn.sql("SELECT DISTINCT table_name FROM meta.lake_changes").fetchall()}
    assert {"billing.user_usage", "billing.budget_user_states", "billing.cost_center_resources"} <= marked


def test_a_fetched_state_drops_an_erased_user_resource_but_a_team_of_the_same_name_lands():
    key = b"k" * 32
    forgotten = Forgotten(key, frozenset(person_hashes(key, Person(None, "ann"))))
    resources = pl.DataFrame(
        {
            "snapshot_day": [SNAP] * 3,
            "resource_type": ["User", "Team", "User"],
            "resource_name": ["Ann", "ann", "bob"],
            "user_id": pl.Series([None, None, None], dtype=pl.Int64),
        }
    )
    kept = without_forgotten({"cost_center_resources": resources}, forgotten, schema="billing")
    assert kept["cost_center_resources"].select("resource_type", "resource_name").rows() == [
        ("Team", "ann"),
        ("User", "bob"),
    ]


def test_retention_removes_the_billing_rows_of_expired_days_and_keeps_the_bill(conn):
    _land(conn)
    done = apply_retention(conn, days=10, today=date(2026, 11, 20))  # the export day expired, the snapshot kept
    assert done.rows == {"billing.user_usage": 2}
    assert conn.sql("SELECT count(*) FROM billing.budget_user_states").fetchall() == [(2,)]
    assert conn.sql("SELECT sum(net_amount) FROM billing.credit_usage").fetchall() == [(Decimal("3.75"),)]


def test_a_person_s_quarantined_export_lines_go_and_anyone_else_s_stay(conn):
    for number, text in enumerate(('2026-10-02,Ann,copilot,x,"m",bad', "2026-10-02,anne,copilot,x,m,bad"), start=2):
        conn.execute(
            "INSERT INTO raw.quarantine (scope, scope_name, report_kind, level, report_start_day, report_end_day,"
            " file_index, archive_path, link, line_number, reason, line_text, fetched_at)"
            " VALUES ('enterprise', 'big', 'export', 'billing', '2026-10-01', '2026-10-31', 0, 'a', 'l', ?,"
            " 'quantity is not an amount', ?, now())",
            [number, text],
        )
    conn.execute("BEGIN TRANSACTION")
    erased = erase_rows(conn, Person(None, "ann"))
    conn.execute("COMMIT")
    assert erased.rows == {"raw.quarantine": 1}
    assert not erased.record_days  # the bill's lines are no usage report's records
    assert conn.sql("SELECT line_text FROM raw.quarantine").fetchall() == [("2026-10-02,anne,copilot,x,m,bad",)]


def _budget(conn: duckdb.DuckDBPyConnection, budget_id: str, recipients: list[str] | None) -> None:
    conn.execute(
        "INSERT INTO billing.budgets (snapshot_day, enterprise, budget_id, budget_scope, budget_entity_name,"
        " budget_amount, will_alert, alert_recipients, fetched_at) VALUES (?, 'big', ?, 'enterprise', 'big', 50,"
        " TRUE, ?, now())",
        [SNAP, budget_id, recipients],
    )


def test_forget_takes_the_person_out_of_budgets_alert_recipients_in_any_case_and_no_one_else(conn, tmp_path: Path):
    _budget(conn, "b-all", ["admin", "Ann", "anne", "ann-1"])
    _budget(conn, "b-ann", ["ann"])
    _budget(conn, "b-none", None)
    places = Places(
        raw_dir=tmp_path / "raw",
        spool_dir=tmp_path / "spool",
        etag_cache=None,
        lake=tmp_path / "lake",
        serving=tmp_path / "serving.duckdb",
        aggregate_k=5,
    )
    forget(conn, "ann", key="a-test-pseudonym-key-of-some-length", places=places)
    assert conn.sql("SELECT budget_id, alert_recipients FROM billing.budgets ORDER BY 1").fetchall() == [
        ("b-all", ["admin", "anne", "ann-1"]),
        ("b-ann", []),
        ("b-none", None),
    ]
    # The lake is published again without them (their partitions were marked changed).
    lake = sorted(str(path) for path in (tmp_path / "lake").rglob("*.parquet") if "budgets" in str(path))
    assert lake and duckdb.sql(
        "SELECT list_sort(flatten(list(alert_recipients))) FROM read_parquet($files, union_by_name => true)"
        " WHERE budget_id IN ('b-all', 'b-ann')",
        params={"files": lake},
    ).fetchall() == [(["admin", "ann-1", "anne"],)]


def test_a_fetched_budget_lands_without_an_erased_alert_recipient():
    key = b"k" * 32
    forgotten = Forgotten(key, frozenset(person_hashes(key, Person(None, "ann"))))
    records = [
        {"id": "b-1", "budget_scope": "enterprise", "budget_alerting": {"will_alert": True, "alert_recipients": r}}
        for r in (["ANN", "bob"], [])
    ]
    budgets = budgets_frame(records, day=SNAP, enterprise="big", fetched_at=datetime.now(UTC))
    kept = without_forgotten({"budgets": budgets}, forgotten, schema="billing")
    assert kept["budgets"]["alert_recipients"].to_list() == [["bob"], []]
