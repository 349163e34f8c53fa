"""bi.assistant_cost_daily over what runs land from the emulator over loopback HTTP: the service's
bill, Claude Code's analytics and Cursor's spend read on two days of one billing cycle. Each
source's rows are its own figures to the cent: the bill's net per scope and day, Anthropic's
estimated cost per person and day, and Cursor's cycle-to-date spend placed as its growth between
reads, which adds up to the last read; a person's cost is where their usage is; a re-read changes
nothing."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import date, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import duckdb
import httpx
import pytest

from emulator import RunningEmulator, running_emulator
from pipelines.ingest import ingest_report
from pipelines.ingest.billing import ingest_billing
from pipelines.ingest.snapshots import SnapshotSettings, run_snapshot
from pipelines.service import ReportRef, RetryPolicy, ServiceClient
from pipelines.warehouse import migrate
from tests._emulator import settings_for
from tests._vendors import read_vendors, vendor_world

TODAY = date(2026, 11, 20)
FIRST_READ = date(2026, 11, 17)  # two reads of November's cycle, a day without one between
REPORT_DAYS = (date(2026, 11, 10), date(2026, 11, 11), date(2026, 11, 12))
VENDOR_DAYS = [date(2026, 11, 10) + timedelta(days=n) for n in range(11)]
FAST_RETRY = RetryPolicy(max_attempts=3, backoff_initial=0.01, backoff_max=0.05)
CENT = Decimal("0.01")


@dataclass
class Landed:
    emu: RunningEmulator
    conn: duckdb.DuckDBPyConnection
    home: Path
    # Cursor's spend as served at each read, by (read day, email): (on-demand, overall) cents.
    spend: dict[tuple[date, str], tuple[Decimal, Decimal]] = field(default_factory=dict)


def _read_vendors(landed: Landed) -> None:
    read_vendors(landed.emu, landed.conn, days=VENDOR_DAYS, raw_dir=landed.home / "raw")


def _served_spend(emu: RunningEmulator) -> dict[str, tuple[Decimal, Decimal]]:
    creds = emu.credentials
    answer = httpx.post(
        creds["cursor_base_url"] + "/teams/spend",
        json={"page": 1, "pageSize": 1000},
        auth=(creds["cursor_api_key"], ""),
    )
    body = answer.json(parse_float=Decimal)
    assert body["totalPages"] == 1
    return {
        m["email"].lower(): (Decimal(m["spendCents"]), Decimal(m["overallSpendCents"])) for m in body["teamMemberSpend"]
    }


@pytest.fixture(scope="module")
def landed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Landed]:
    home = tmp_path_factory.mktemp("assistant-cost")
    conn = duckdb.connect(str(home / "warehouse.duckdb"))
    migrate(conn)
    with (
        running_emulator(vendor_world(TODAY)) as emu,
        ServiceClient(config=settings_for(emu).service_config(), retry=FAST_RETRY) as client,
    ):
        org = emu.credentials["org"]
        for day in REPORT_DAYS:
            ingest_report(
                client=client, ref=ReportRef("organization", org, "1-day", "user", day), conn=conn, raw_dir=home / "raw"
            )
        run_snapshot(client, conn, settings=SnapshotSettings(orgs=(org,)), day=TODAY)
        ingest_billing(client, conn, scopes=[("organization", org)], months=1, say=lambda line: None)
        landed = Landed(emu, conn, home)
        for read in (FIRST_READ, TODAY):
            emu.set_today(read)
            _read_vendors(landed)
            landed.spend |= {(read, email): cents for email, cents in _served_spend(emu).items()}
        yield landed
    conn.close()


def _rows(conn: duckdb.DuckDBPyConnection, sql: str, *params: Any) -> list[tuple[Any, ...]]:
    return conn.execute(sql, list(params)).fetchall()


def _person(conn: duckdb.DuckDBPyConnection) -> dict[str, str]:
    """The identity map: an email's person (its login in lower case)."""
    return dict(_rows(conn, "SELECT email, lower(login) FROM bi.assistant_identities"))


def test_the_services_rows_are_its_bill_per_scope_and_day(landed: Landed) -> None:
    bill = _rows(
        landed.conn,
        "SELECT scope, scope_name, day, sum(net_amount), sum(gross_amount), bool_and(month_closed)"
        " FROM bi.cost_daily GROUP BY ALL ORDER BY ALL",
    )
    assert bill and any(net > 0 for *_, net, _, _ in bill)
    rows = _rows(
        landed.conn,
        "SELECT scope, scope_name, day, amount_usd, gross_usd, is_final FROM bi.assistant_cost_daily"
        " WHERE source = 'service' AND cost_kind = 'billed' AND billed AND person IS NULL ORDER BY ALL",
    )
    assert rows == bill


def test_claude_codes_rows_are_anthropics_estimated_cost_per_person_and_day(landed: Landed) -> None:
    creds = landed.emu.credentials
    served: dict[tuple[date, str, str], Decimal] = {}
    for day in VENDOR_DAYS:
        answer = httpx.get(
            creds["anthropic_base_url"] + "/v1/organizations/usage_report/claude_code",
            params={"starting_at": day.isoformat(), "limit": 1000},
            headers={"x-api-key": creds["anthropic_admin_key"], "anthropic-version": "2023-06-01"},
        )
        for r in answer.json()["data"]:
            actor = r["actor"]
            who = (
                actor["email_address"].lower() if actor["type"] == "user_actor" else "api key: " + actor["api_key_name"]
            )
            kind = "subscription_estimate" if r["customer_type"] == "subscription" else "api_estimate"
            cents = sum(Decimal(m["estimated_cost"]["amount"]) for m in r["model_breakdown"])
            if cents:
                served[day, who, kind] = served.get((day, who, kind), Decimal(0)) + cents * CENT
    assert served and {kind for _, _, kind in served} <= {"api_estimate", "subscription_estimate"}
    person = _person(landed.conn)
    by_person: dict[tuple[date, str, str], Decimal] = {}
    for (day, who, kind), amount in served.items():
        key = (day, person.get(who, who), kind)
        by_person[key] = by_person.get(key, Decimal(0)) + amount
    rows = _rows(
        landed.conn,
        "SELECT DISTINCT day, person, cost_kind, amount_usd, billed FROM bi.assistant_cost_daily"
        " WHERE source = 'claude_code'",
    )
    got = {(day, who, kind): amount for day, who, kind, amount, _ in rows}
    assert len(got) == len(rows), "a person's day is the same amount in every scope"
    assert got == by_person
    assert all(billed == (kind == "api_estimate") for _, _, kind, _, billed in rows)


def test_cursors_spend_is_its_growth_between_reads_and_adds_up_to_the_last_read(landed: Landed) -> None:
    rows = _rows(
        landed.conn,
        "SELECT DISTINCT day, covers_from, person, amount_usd, gross_usd, is_final FROM bi.assistant_cost_daily"
        " WHERE source = 'cursor'",
    )
    assert rows
    person = _person(landed.conn)
    first: dict[str, tuple[Decimal, Decimal]] = {}
    last: dict[str, tuple[Decimal, Decimal]] = {}
    for (read, email), (on_demand, overall) in landed.spend.items():
        into = first if read == FIRST_READ else last
        was = into.get(person.get(email, email), (Decimal(0), Decimal(0)))
        into[person.get(email, email)] = (was[0] + on_demand, was[1] + overall)
    # A person without spend in a read has no row of it.
    first = {who: cents for who, cents in first.items() if any(cents)}
    got = {(day, email): (covers, amount, gross, final) for day, covers, email, amount, gross, final in rows}
    assert len(got) == len(rows)
    for (day, email), (covers, amount, gross, final) in got.items():
        if day == FIRST_READ:
            assert (covers, final) == (date(2026, 11, 1), True)
            assert (amount, gross) == (first[email][0] * CENT, first[email][1] * CENT)
        else:
            assert (day, covers, final) == (TODAY, FIRST_READ + timedelta(days=1), False)
            was = first.get(email, (Decimal(0), Decimal(0)))
            growth = (last[email][0] - was[0], last[email][1] - was[1])
            assert (amount, gross) == (growth[0] * CENT, growth[1] * CENT)
    for email, (on_demand, overall) in last.items():
        if not any((on_demand, overall)):
            continue
        mine = [v for (_, e), v in got.items() if e == email]
        assert sum((v[1] for v in mine), Decimal(0)) == on_demand * CENT, email
        assert sum((v[2] for v in mine), Decimal(0)) == overall * CENT, email
    assert any(amount > 0 for _, amount, _, _ in got.values())


def test_a_persons_cost_is_in_the_scopes_of_their_usage_and_an_unmapped_person_is_counted(landed: Landed) -> None:
    conn = landed.conn
    astray = _rows(
        conn,
        "SELECT c.source, c.day, c.person, c.scope FROM bi.assistant_cost_daily AS c"
        " WHERE c.source = 'claude_code' AND NOT EXISTS (SELECT 1 FROM bi.assistant_usage_daily AS u"
        "   WHERE u.source = c.source AND u.day = c.day AND u.person = c.person"
        "     AND u.scope = c.scope AND u.scope_name = c.scope_name)",
    )
    assert astray == []
    kinds = dict(
        _rows(conn, "SELECT person_kind, count(*) FROM bi.assistant_cost_daily WHERE source <> 'service' GROUP BY 1")
    )
    assert kinds.get("login", 0) > 0 and kinds.get("email", 0) > 0, kinds  # unmapped people are counted, by email
    assert _rows(
        conn,
        "SELECT DISTINCT scope FROM bi.assistant_cost_daily WHERE person_kind = 'email'",
    ) == [("vendor",)]


def test_a_read_again_the_same_day_changes_nothing(landed: Landed) -> None:
    sql = "SELECT * FROM bi.assistant_cost_daily ORDER BY ALL"
    before = _rows(landed.conn, sql)
    spend = _rows(landed.conn, "SELECT count(*), count(DISTINCT read_day) FROM vendors.cursor_spend")
    assert spend[0][1] == 2  # both reads kept
    _read_vendors(landed)
    assert _rows(landed.conn, sql) == before
    assert _rows(landed.conn, "SELECT count(*), count(DISTINCT read_day) FROM vendors.cursor_spend") == spend
