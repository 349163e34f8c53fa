"""Seats over loopback: a snapshot taken from the emulator holds its seat listing as served."""

from __future__ import annotations

from dataclasses import replace
from datetime import date, datetime

import httpx
import pytest

from emulator import EmulatorConfig
from pipelines.config import Secret
from pipelines.defs.snapshots.checks import SNAPSHOT_CHECKS
from pipelines.ingest.snapshots import SnapshotSettings, SnapshotWarning, run_snapshot
from pipelines.service import ServiceClient
from pipelines.warehouse.checks import run_checks
from tests._emulator import settings_for
from tests.integration.snapshots.conftest import FAST_RETRY

DAY = date(2026, 11, 20)
_MEDIA = {"service": "application/vnd.service+json", "github": "application/vnd.github+json"}


def _served(emu, dialect: str, *, scope: str = "orgs") -> tuple[int, list[dict]]:
    """The emulator's seat listing, read page by page with plain httpx: (total_seats, seats)."""
    name = emu.credentials["org" if scope == "orgs" else "enterprise"]
    product = "assistant" if dialect == "service" else "copilot"
    headers = {"Authorization": f"token {emu.credentials['token']}", "Accept": _MEDIA[dialect]}
    url: str | None = f"{emu.base_url}/{scope}/{name}/{product}/billing/seats?per_page=7&page=1"
    total, seats = None, []
    while url is not None:
        answer = httpx.get(url, headers=headers)
        answer.raise_for_status()
        total = answer.json()["total_seats"] if total is None else total
        seats += answer.json()["seats"]
        url = answer.links.get("next", {}).get("url")
    assert total is not None
    return total, seats


_BOTH_DIALECTS = pytest.mark.parametrize(
    "emulator_config",
    [EmulatorConfig(seed=7, users=140, repos=1, issues_per_repo=1, dialect=d) for d in ("service", "github")],
    ids=["service", "github"],
)


@_BOTH_DIALECTS
def test_snapshot_from_the_emulator_holds_every_seat_with_its_activity_as_served(
    emu, make_client, warehouse, emulator_config
):
    org = emu.credentials["org"]
    result = run_snapshot(make_client(), warehouse, settings=SnapshotSettings(orgs=(org,)), day=DAY)
    total, served = _served(emu, emulator_config.dialect)

    assert total == emulator_config.users > 100  # more than one page of 100
    assert result.warnings == ()
    assert warehouse.execute("SELECT org_login, total_seats FROM snapshots.seat_totals").fetchall() == [(org, total)]
    landed = {
        user_id: (login, team, last_activity)
        for user_id, login, team, last_activity in warehouse.execute(
            "SELECT user_id, login, assigning_team_id, last_activity_at FROM snapshots.seats"
        ).fetchall()
    }
    assert len(landed) == total
    want = {
        s["assignee"]["id"]: (
            s["assignee"]["login"],
            (s["assigning_team"] or {}).get("id"),
            None if s["last_activity_at"] is None else datetime.fromisoformat(s["last_activity_at"]),
        )
        for s in served
    }
    assert landed == want
    assert any(a is None for _, _, a in landed.values()) and any(t is None for _, t, _ in landed.values())
    assert warehouse.execute(
        "SELECT DISTINCT organization_login, assigning_team_type FROM snapshots.seats ORDER BY ALL"
    ).fetchall() == [(org, "organization"), (org, None)]
    # The blocking check agrees: rows = total_seats for the day.
    failures = warehouse.execute(
        "SELECT count(*) FROM snapshots.seat_totals t"
        " WHERE total_seats <> (SELECT count(*) FROM snapshots.seats s"
        " WHERE s.snapshot_day = t.snapshot_day AND s.org_login = t.org_login)"
    ).fetchone()
    assert failures == (0,)


@_BOTH_DIALECTS
def test_enterprise_seats_land_a_row_per_grant_with_holders_adding_up_to_total_seats(
    emu, make_client, warehouse, emulator_config
):
    org, enterprise = emu.credentials["org"], emu.credentials["enterprise"]
    settings = SnapshotSettings(orgs=(org,), enterprises=(enterprise,))
    result = run_snapshot(make_client(), warehouse, settings=settings, day=DAY)
    total, served = _served(emu, emulator_config.dialect, scope="enterprises")

    assert result.warnings == ()
    assert warehouse.execute("SELECT enterprise, total_seats FROM snapshots.enterprise_seat_totals").fetchall() == [
        (enterprise, total)
    ]
    [(rows, holders)] = warehouse.execute(
        "SELECT count(*), count(DISTINCT user_id) FROM snapshots.enterprise_seats"
    ).fetchall()
    assert (rows, holders) == (len(served), total)
    assert rows > total and rows > 100  # more seats than holders, over several pages
    # A user two organizations grant has two seats, one per organization.
    two_orgs = warehouse.execute(
        "SELECT user_id, list(granted_by ORDER BY granted_by) FROM snapshots.enterprise_seats"
        " WHERE granted_through = 'organization' GROUP BY user_id HAVING count(*) = 2 ORDER BY user_id LIMIT 1"
    ).fetchall()
    assert two_orgs and two_orgs[0][1] == [org, f"{org}-labs"]
    # A seat an enterprise team grants keeps the team's type; an organization's team is told apart.
    kinds = warehouse.execute(
        "SELECT DISTINCT granted_through, organization_login IS NULL, assigning_team_type"
        " FROM snapshots.enterprise_seats ORDER BY ALL"
    ).fetchall()
    assert kinds == [
        ("enterprise_team", True, "enterprise"),
        ("organization", False, "organization"),
        ("organization", False, None),
    ]
    served_grants = sorted(
        (s["assignee"]["id"], (s["organization"] or {}).get("login") or s["assigning_team"]["slug"]) for s in served
    )
    assert sorted(warehouse.execute("SELECT user_id, granted_by FROM snapshots.enterprise_seats").fetchall()) == (
        served_grants
    )
    failures = warehouse.execute(
        "SELECT count(*) FROM snapshots.enterprise_seat_totals t WHERE total_seats <> (SELECT count(DISTINCT user_id)"
        " FROM snapshots.enterprise_seats s WHERE s.snapshot_day = t.snapshot_day AND s.enterprise = t.enterprise)"
    ).fetchall()
    assert failures == [(0,)]

    # The same snapshot day again changes nothing.
    tables = ("seats", "seat_totals", "enterprise_seats", "enterprise_seat_totals")
    before = {t: warehouse.sql(f"SELECT * FROM snapshots.{t} ORDER BY ALL").fetchall() for t in tables}
    run_snapshot(make_client(), warehouse, settings=settings, day=DAY)
    assert {t: warehouse.sql(f"SELECT * FROM snapshots.{t} ORDER BY ALL").fetchall() for t in tables} == before


def test_a_token_without_billing_permission_lands_the_day_with_a_seats_warning(emu, warehouse, tmp_path):
    org = emu.credentials["org"]
    settings = replace(
        settings_for(emu, etag_cache=tmp_path / "cache.sqlite3"), token=Secret(emu.credentials["limited_token"])
    )
    with ServiceClient(config=settings.service_config(), retry=FAST_RETRY) as client:
        result = run_snapshot(client, warehouse, settings=SnapshotSettings(orgs=(org,)), day=DAY)

    seats_warnings = [w for w in result.warnings if w.endpoint == "seats"]
    assert [(w.repository, w.status) for w in seats_warnings] == [(org, 403)]
    assert isinstance(seats_warnings[0], SnapshotWarning) and seats_warnings[0].message
    assert warehouse.execute("SELECT count(*) FROM snapshots.seats").fetchone() == (0,)
    assert warehouse.execute("SELECT count(*) FROM snapshots.seat_totals").fetchone() == (0,)
    assert warehouse.execute(
        "SELECT repository, endpoint, status FROM snapshots.warnings WHERE endpoint = 'seats'"
    ).fetchall() == [(org, "seats", 403)]
    assert warehouse.execute("SELECT count(*) FROM snapshots.org_members").fetchone()[0] > 0


@pytest.mark.parametrize(
    "emulator_config",
    [
        EmulatorConfig(seed=7, users=12, repos=2, issues_per_repo=3, dialect=d, unassigned_seats=2)
        for d in ("service", "github")
    ],
    ids=["service", "github"],
)
def test_seats_without_an_assignee_land_unassigned_and_count_in_the_totals(
    emu, make_client, warehouse, emulator_config
):
    """The service documents `assignee` as nullable (a deleted or pending account): the emulator
    serves two such seats at the end of each listing; the snapshot lands whole."""
    org, enterprise = emu.credentials["org"], emu.credentials["enterprise"]
    total, served = _served(emu, emulator_config.dialect)
    assert [s["assignee"] for s in served[-2:]] == [None, None] and total == emulator_config.users + 2

    settings = SnapshotSettings(orgs=(org,), enterprises=(enterprise,))
    result = run_snapshot(make_client(), warehouse, settings=settings, day=DAY)
    assert result.warnings == ()
    assert warehouse.execute("SELECT count(*) FROM snapshots.seats").fetchall() == [(emulator_config.users,)]
    assert warehouse.execute(
        "SELECT scope, scope_name, seat_number, plan_type FROM snapshots.unassigned_seats ORDER BY ALL"
    ).fetchall() == [
        ("enterprise", enterprise, 1, "business"),
        ("enterprise", enterprise, 2, "business"),
        ("organization", org, 1, "business"),
        ("organization", org, 2, "business"),
    ]
    # The day's other listings landed with them.
    for table in ("repositories", "issues", "org_members", "enterprise_seats"):
        assert warehouse.execute(f"SELECT count(*) FROM snapshots.{table}").fetchone()[0] > 0, table
    # The seat totals view counts them, and the listings' completeness checks pass.
    assert warehouse.execute(
        "SELECT sum(seats), sum(seats) FILTER (WHERE assignment = 'unassigned') FROM bi.seat_utilization"
    ).fetchall() == [(total, 2)]
    outcomes = {o.check.name: o for o in run_checks(warehouse, SNAPSHOT_CHECKS)}
    assert outcomes["seat_snapshot_complete"].passed and outcomes["enterprise_seat_snapshot_complete"].passed
