"""The page's "Assistants across vendors" section over what runs land from the emulator over loopback
HTTP: an organization's and its enterprise's reports, both bills, the seats, Claude Code's analytics
and Cursor's usage and spend read on two days. Its figures are SQL's over the views, in the page's
scope (the enterprise, never added to its organization) and scope `vendor`: people per source,
people on more than one, the unmapped per vendor, cost per source and kind; no person is named.
Without a vendor, the section is one line naming the two settings that turn it on."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date, timedelta
from html import unescape
from pathlib import Path
from typing import Any, Literal

import duckdb
import pytest

from emulator import EmulatorConfig, running_emulator
from pipelines.bi import money
from pipelines.ingest import ingest_report
from pipelines.ingest.billing import ingest_billing
from pipelines.ingest.snapshots import SnapshotSettings, run_snapshot
from pipelines.page import render_page
from pipelines.service import ReportRef, RetryPolicy, ServiceClient
from pipelines.warehouse import migrate
from tests._emulator import settings_for
from tests._vendors import read_vendors, vendor_world

TODAY = date(2026, 11, 20)
FIRST_READ = date(2026, 11, 17)  # Cursor's spend read twice in November's cycle
REPORT_DAYS = (date(2026, 11, 10), date(2026, 11, 11), date(2026, 11, 12))
VENDOR_DAYS = [date(2026, 11, 10) + timedelta(days=n) for n in range(11)]
FAST_RETRY = RetryPolicy(max_attempts=3, backoff_initial=0.01, backoff_max=0.05)
IN_SECTION = "(scope = 'enterprise' OR scope = 'vendor') AND day BETWEEN ? AND ?"


def _scopes(creds: dict[str, str]) -> list[tuple[Literal["organization", "enterprise"], str]]:
    return [("organization", creds["org"]), ("enterprise", creds["enterprise"])]


@dataclass(frozen=True)
class Landed:
    conn: duckdb.DuckDBPyConnection
    page: str
    section: str
    first: date
    last: date


def _section(page: str) -> str:
    found = re.search(r'<section class="card" id="assistants">(.*?)</section>', page, re.S)
    assert found, "no Assistants across vendors section"
    return found.group(1)


def _land_reports(client: ServiceClient, conn: duckdb.DuckDBPyConnection, home: Path, creds: dict[str, str]) -> None:
    for day in REPORT_DAYS:
        for scope, name in _scopes(creds):
            for level in ("aggregate", "user"):
                ingest_report(client=client, ref=ReportRef(scope, name, "1-day", level, day), conn=conn, raw_dir=home)


@pytest.fixture(scope="module")
def landed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Landed]:
    home = tmp_path_factory.mktemp("vendors-section")
    conn = duckdb.connect(str(home / "warehouse.duckdb"))
    migrate(conn)
    with (
        running_emulator(vendor_world(TODAY)) as emu,
        ServiceClient(config=settings_for(emu).service_config(), retry=FAST_RETRY) as client,
    ):
        creds = emu.credentials
        _land_reports(client, conn, home / "raw", creds)
        run_snapshot(client, conn, settings=SnapshotSettings(orgs=(creds["org"],)), day=TODAY)
        ingest_billing(client, conn, scopes=_scopes(creds), months=1, say=lambda line: None)
        for read in (FIRST_READ, TODAY):
            emu.set_today(read)
            read_vendors(emu, conn, days=VENDOR_DAYS, raw_dir=home / "raw")
    page = render_page(conn)
    ((last,),) = _rows(
        conn,
        "SELECT max(day) FROM (SELECT day, scope FROM bi.assistant_usage_daily UNION ALL "
        "SELECT day, scope FROM bi.assistant_cost_daily) WHERE scope IN ('enterprise', 'vendor')",
    )
    yield Landed(conn, page, _section(page), last - timedelta(days=27), last)
    conn.close()


def _rows(conn: duckdb.DuckDBPyConnection, sql: str, *params: Any) -> list[tuple[Any, ...]]:
    return conn.execute(sql, list(params)).fetchall()


def _table(section: str, row_class: str, *keys: str) -> dict[tuple[str, ...], dict[str, str]]:
    """Each row of class `row_class` by its data-`keys` attributes: its cells' text by heading."""
    found: dict[tuple[str, ...], dict[str, str]] = {}
    for attrs, cells in re.findall(rf'<tr (class="{row_class}"[^>]*)>(.*?)</tr>', section, re.S):
        key = tuple(unescape(re.search(rf'data-{k}="([^"]*)"', attrs).group(1)) for k in keys)  # type: ignore[union-attr]
        found[key] = {
            unescape(h): unescape(re.sub(r"<[^>]+>", "", v))
            for h, v in re.findall(r'<td[^>]*data-label="([^"]*)">(.*?)</td>', cells, re.S)
        }
    return found


def test_the_section_names_its_days_the_newest_28_with_data(landed: Landed) -> None:
    assert "<h2>Assistants across vendors</h2>" in landed.section
    assert f"{landed.first} to {landed.last}: the newest 28 days" in landed.section
    assert landed.last == TODAY  # Cursor's second spend read: a cost without use, still in the days


def test_people_per_source_are_the_counted_active_people_of_the_enterprise_and_scope_vendor(landed: Landed) -> None:
    expected = _rows(
        landed.conn,
        "SELECT source, count(DISTINCT person) FILTER (WHERE active), "
        "count(DISTINCT person) FILTER (WHERE active AND login IS NOT NULL), "
        "count(DISTINCT day) FILTER (WHERE NOT is_final) "
        f"FROM bi.assistant_usage_daily WHERE counted AND {IN_SECTION} GROUP BY source",
        landed.first,
        landed.last,
    )
    shown = _table(landed.section, "vendor-source", "source")
    assert {"service", "claude_code", "cursor"} <= {s for (s,) in shown}
    assert len(shown) == len(expected)
    for source, active, mapped, provisional in expected:
        row = shown[(source,)]
        assert row["People active"] == f"{active:,}", source
        assert row["Provisional days"] == f"{provisional:,}", source
        if source in ("claude_code", "cursor"):
            assert row["Mapped to a service login"] == f"{mapped:,}", source
            assert 0 < mapped < active, source  # the emulator has people of both kinds


def test_people_on_more_than_one_source_are_sqls_count_of_persons(landed: Landed) -> None:
    ((both, two),) = _rows(
        landed.conn,
        "WITH p AS (SELECT person, list(DISTINCT source) AS s FROM bi.assistant_usage_daily "
        f"WHERE counted AND active AND {IN_SECTION} GROUP BY person) "
        "SELECT count(*) FILTER (WHERE list_contains(s, 'service') "
        "AND (list_contains(s, 'claude_code') OR list_contains(s, 'cursor'))), "
        "count(*) FILTER (WHERE list_contains(s, 'claude_code') AND list_contains(s, 'cursor')) FROM p",
        landed.first,
        landed.last,
    )
    assert both > 0
    assert f'<strong data-figure="service-and-vendor">{both:,}</strong>' in landed.section
    assert f'<strong data-figure="two-vendors">{two:,}</strong>' in landed.section


def test_the_unmapped_people_per_vendor_are_the_views_and_the_identity_map_is_named(landed: Landed) -> None:
    unmapped = dict(_rows(landed.conn, "SELECT vendor, people FROM bi.assistant_unmapped_people"))
    recent = dict(
        _rows(
            landed.conn,
            "SELECT vendor, count(DISTINCT person) FROM bi.assistant_usage_daily "
            "WHERE source_kind = 'vendor' AND login IS NULL AND person_kind = 'email' "
            f"AND {IN_SECTION} GROUP BY vendor",
            landed.first,
            landed.last,
        )
    )
    assert recent and recent == unmapped  # every vendor day is in the section's days
    shown = _table(landed.section, "vendor-unmapped", "vendor")
    assert {v: int(row["People without a login"].replace(",", "")) for (v,), row in shown.items()} == recent
    assert "<code>IDENTITY_MAP_PATH</code>" in landed.section and "<code>email,login</code>" in landed.section


def test_cost_per_source_is_the_enterprise_bill_and_the_vendors_estimates_kept_apart(landed: Landed) -> None:
    expected = _rows(
        landed.conn,
        "SELECT source, cost_kind, sum(amount_usd), "
        "coalesce(sum(amount_usd) FILTER (WHERE person_kind IN ('email', 'api_key')), 0) "
        f"FROM bi.assistant_cost_daily WHERE {IN_SECTION} GROUP BY ALL",
        landed.first,
        landed.last,
    )
    shown = _table(landed.section, "vendor-cost", "source", "cost-kind")
    assert {(s, k) for s, k, *_ in expected} == set(shown)
    assert ("service", "billed") in shown and ("cursor", "on_demand") in shown
    assert any(source == "claude_code" for source, _ in shown)
    for source, kind, amount, unmapped in expected:
        row = shown[(source, kind)]
        assert row["Amount"] == money(amount), (source, kind)
        if source != "service":
            assert row["Of which unmapped people"] == money(unmapped), (source, kind)
    # The page's scope alone: the enterprise's bill, never with its organization's added.
    ((enterprise, organization),) = _rows(
        landed.conn,
        "SELECT sum(amount_usd) FILTER (WHERE scope = 'enterprise'), sum(amount_usd) FILTER (WHERE scope = "
        "'organization') FROM bi.assistant_cost_daily WHERE source = 'service' AND day BETWEEN ? AND ?",
        landed.first,
        landed.last,
    )
    assert organization and shown[("service", "billed")]["Amount"] == money(enterprise)
    assert "estimated by Anthropic" in shown[next(k for k in shown if k[0] == "claude_code")]["What it is"]
    assert shown[("service", "billed")]["What it is"].startswith("billed: the bill's net")


def test_the_section_names_no_person(landed: Landed) -> None:
    people = _rows(
        landed.conn,
        "SELECT DISTINCT person FROM bi.assistant_usage_daily WHERE source_kind = 'vendor' UNION "
        "SELECT DISTINCT lower(login) FROM bi.assistant_usage_daily WHERE login IS NOT NULL UNION "
        "SELECT DISTINCT email FROM bi.assistant_identities",
    )
    text = unescape(landed.section).lower()
    named = [p for (p,) in people if re.search(rf"(?<![\w.@-]){re.escape(p.lower())}(?![\w.@-])", text)]
    assert people and not named


def test_without_a_vendor_the_section_is_one_line_naming_both_settings(tmp_path: Path) -> None:
    conn = duckdb.connect(str(tmp_path / "warehouse.duckdb"))
    migrate(conn)
    with (
        running_emulator(EmulatorConfig(seed=11, users=12, repos=1, today=TODAY)) as emu,
        ServiceClient(config=settings_for(emu).service_config(), retry=FAST_RETRY) as client,
    ):
        org = emu.credentials["org"]
        for level in ("aggregate", "user"):
            ingest_report(
                client=client,
                ref=ReportRef("organization", org, "1-day", level, REPORT_DAYS[0]),
                conn=conn,
                raw_dir=tmp_path,
            )
    assert _rows(conn, "SELECT count(*) FROM bi.assistant_usage_daily WHERE source = 'service'")[0][0] > 0
    section = _section(render_page(conn))
    conn.close()
    assert "<h2>" not in section and section.count("<p") == 1 and "\n" not in section
    assert "<code>ANTHROPIC_ADMIN_KEY</code> (Claude Code" in section
    assert "<code>CURSOR_API_KEY</code> (Cursor" in section
