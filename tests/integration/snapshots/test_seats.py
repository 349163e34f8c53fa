"""Seats over loopback: a snapshot taken from the emulator holds its seat listing as served."""

from __future__ import annotations

from dataclasses import replace
from datetime import date, datetime

import httpx
import pytest

from emulator import EmulatorConfig
from pipelines.config import Secret
from pipelines.ingest.snapshots import SnapshotSettings, SnapshotWarning, run_snapshot
from pipelines.service import ServiceClient
from tests._emulator import settings_for
from tests.integration.snapshots.conftest import FAST_RETRY

DAY = date(2026, 11, 20)
_MEDIA = {"service": "application/vnd.service+json", "github": "application/vnd.github+json"}


def _served(emu, dialect: str) -> tuple[int, list[dict]]:
    """The emulator's seat listing, read page by page with plain httpx: (total_seats, seats)."""
    org, product = emu.credentials["org"], "assistant" if dialect == "service" else "copilot"
    headers = {"Authorization": f"token {emu.credentials['token']}", "Accept": _MEDIA[dialect]}
    url: str | None = f"{emu.base_url}/orgs/{org}/{product}/billing/seats?per_page=7&page=1"
    total, seats = None, []
    while url is not None:
        answer = httpx.get(url, headers=headers)
        answer.raise_for_status()
        total = answer.json()["total_seats"] if total is None else total
        seats += answer.json()["seats"]
        url = answer.links.get("next", {}).get("url")
    assert total is not None
    return total, seats


@pytest.mark.parametrize(
    "emulator_config",
    [EmulatorConfig(seed=7, users=140, repos=1, issues_per_repo=1, dialect=d) for d in ("service", "github")],
    ids=["service", "github"],
)
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
    # The blocking check agrees: rows = total_seats for the day.
    failures = warehouse.execute(
        "SELECT count(*) FROM snapshots.seat_totals t"
        " WHERE total_seats <> (SELECT count(*) FROM snapshots.seats s"
        " WHERE s.snapshot_day = t.snapshot_day AND s.org_login = t.org_login)"
    ).fetchone()
    assert failures == (0,)


def test_a_token_without_billing_permission_lands_the_day_with_a_seats_warning(emu, warehouse, tmp_path):
    org = emu.credentials["org"]
    settings = replace(settings_for(emu, etag_cache=tmp_path / "cache.sqlite3"),
                       token=Secret(emu.credentials["limited_token"]))
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
