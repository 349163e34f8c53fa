"""The billing state over loopback against the emulator, in both dialects: an enterprise's cost
centers (users, teams, organizations), budgets (paged) with their user states, an organization's
seat breakdown and policies land as the snapshot day; a re-run replaces the day; a token without
billing read lands nothing of it and says so once per scope, naming who may read it."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

import duckdb
import pytest

from emulator import EmulatorConfig, running_emulator
from pipelines.ingest.billing_state import run_billing_state
from pipelines.service import ServiceClient
from pipelines.warehouse import migrate
from tests._emulator import settings_for

from .conftest import FAST_RETRY, TODAY

TABLES = (
    "billing.cost_centers",
    "billing.cost_center_resources",
    "billing.budgets",
    "billing.budget_user_states",
    "billing.seat_breakdown",
)


@pytest.fixture(params=["service", "github"])
def dialect(request) -> str:
    return request.param


def _run(config: EmulatorConfig, conn, day: date = TODAY):
    with (
        running_emulator(config) as emu,
        ServiceClient(config=settings_for(emu).service_config(), retry=FAST_RETRY) as c,
    ):
        creds = emu.credentials
        return run_billing_state(c, conn, enterprises=(creds["enterprise"],), orgs=(creds["org"],), day=day)


def _counts(conn) -> dict[str, int]:
    return {name: conn.sql(f"SELECT count(*) FROM {name}").fetchall()[0][0] for name in TABLES}


def test_a_snapshot_day_of_the_billing_state_lands_in_both_dialects(conn, dialect):
    result = _run(EmulatorConfig(seed=11, users=12, today=TODAY, dialect=dialect), conn)
    assert result.refused == () and result.owners == ("acme-corp", "acme")
    fetched = "SELECT scope, status, rows > 0 FROM billing.fetches WHERE endpoint = 'billing_state' ORDER BY scope"
    assert conn.sql(fetched).fetchall() == [("enterprise", "ok", True), ("organization", "ok", True)]
    counts = _counts(conn)
    assert counts["billing.cost_centers"] >= 3 and counts["billing.budgets"] >= 2, counts
    assert counts["billing.budget_user_states"] > 0 and counts["billing.seat_breakdown"] == 1, counts
    kinds = {
        kind for (kind,) in conn.sql("SELECT DISTINCT resource_type FROM billing.cost_center_resources").fetchall()
    }
    assert kinds == {"User", "Team", "Organization"}
    # Money is DECIMAL to the cent and beyond, never a float.
    (consumed,) = conn.sql("SELECT sum(consumed_amount) FROM billing.budget_user_states").fetchall()[0]
    assert isinstance(consumed, Decimal)
    assert conn.sql("SELECT count(*) FROM billing.budgets WHERE prevent_further_usage").fetchall()[0][0] > 0
    # The policies and the breakdown, as the service says them.
    total, plan, extra = conn.sql("SELECT total, plan_type, extra FROM billing.seat_breakdown").fetchall()[0]
    assert total > 0 and plan in {"business", "enterprise"} and extra is None


def test_the_same_world_lands_the_same_rows_under_either_dialect(conn, tmp_path):
    other = duckdb.connect(str(tmp_path / "other.duckdb"))
    migrate(other)
    _run(EmulatorConfig(seed=11, users=12, today=TODAY, dialect="service"), conn)
    _run(EmulatorConfig(seed=11, users=12, today=TODAY, dialect="github"), other)
    for name in TABLES:
        query = f"SELECT * EXCLUDE (fetched_at) FROM {name} ORDER BY ALL"
        assert conn.sql(query).fetchall() == other.sql(query).fetchall(), name
    other.close()


def test_a_re_run_of_the_day_replaces_it(conn):
    config = EmulatorConfig(seed=11, users=12, today=TODAY)
    _run(config, conn)
    first = _counts(conn)
    _run(config, conn)
    assert _counts(conn) == first


def test_a_token_without_billing_read_lands_none_of_it_and_says_one_line_a_scope(conn):
    result = _run(EmulatorConfig(seed=11, users=12, today=TODAY, billing_read=False), conn)
    assert result.owners == ()
    lines = [refused.line() for refused in result.refused]
    assert len(lines) == 2, lines
    assert "enterprise 'acme-corp'" in lines[0] and "billing manager" in lines[0]
    assert "organization 'acme'" in lines[1] and "organization owner" in lines[1]
    assert set(_counts(conn).values()) == {0}
    fetched = "SELECT scope, status, message FROM billing.fetches WHERE endpoint = 'billing_state' ORDER BY scope"
    assert conn.sql(fetched).fetchall() == [
        ("enterprise", "denied", "Must have admin rights or billing manager role"),
        ("organization", "denied", "Must have admin rights or billing manager role"),
    ]


def test_a_scope_refused_later_keeps_the_day_it_had(conn):
    _run(EmulatorConfig(seed=11, users=12, today=TODAY), conn)
    before = _counts(conn)
    _run(EmulatorConfig(seed=11, users=12, today=TODAY, billing_read=False), conn)
    assert _counts(conn) == before
