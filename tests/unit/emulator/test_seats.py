"""Seats of the emulated organization: consistent with the user-level reports, with inactive,
never-active and pending-cancellation seats at the usual sizes."""

from __future__ import annotations

import json
from datetime import date, datetime, timedelta

import pytest

from emulator.reportdata import LAST_ACTIVITY_DAYS, ReportData
from emulator.seats import enterprise_grants, enterprise_seat_count, enterprise_seat_records, seat_count, seat_records

TODAY = date(2026, 11, 20)
FIRST_DAY = TODAY - timedelta(days=60)


def _data(users: int, seed: int = 7) -> ReportData:
    return ReportData(seed=seed, users=users, org="acme", enterprise="acme-corp", first_day=FIRST_DAY)


def _seats(data: ReportData, today: date = TODAY) -> list[dict]:
    return seat_records(data, today=today, base_url="http://emu", start=0, stop=seat_count(data))


def _last_activity(seat: dict) -> date | None:
    raw = seat["last_activity_at"]
    return datetime.fromisoformat(raw).date() if raw else None


@pytest.mark.parametrize("users", [40, 300])
@pytest.mark.parametrize("seed", [1, 3, 7, 11])
def test_inactive_never_active_and_pending_seats_exist(users: int, seed: int) -> None:
    seats = _seats(_data(users, seed))
    assert len(seats) == users
    inactive = [s for s in seats if s["last_activity_at"] and (TODAY - _last_activity(s)).days > 30]
    never = [s for s in seats if s["last_activity_at"] is None]
    pending = [s for s in seats if s["pending_cancellation_date"]]
    assert inactive and never and pending
    assert all(s["last_activity_editor"] is None for s in never)
    assert all(date.fromisoformat(s["pending_cancellation_date"]) > TODAY for s in pending)
    assert {s["plan_type"] for s in seats} == {"business", "enterprise", "unknown"}
    assert any(s["assigning_team"] is None for s in seats) and any(s["assigning_team"] for s in seats)


@pytest.mark.parametrize("users", [40, 450])
def test_holders_have_a_type_their_own_name_and_email_or_null_and_teams_a_parent_or_none(users: int) -> None:
    """As the service documents a seat: `assignee.type`, `assignee.name` and `assignee.email`
    (either may be null), `assigning_team.name` and `assigning_team.parent`."""
    seats = _seats(_data(users))
    assignees = [s["assignee"] for s in seats]
    assert {a["type"] for a in assignees} == {"User"}
    names = [a["name"] for a in assignees if a["name"] is not None]
    emails = [a["email"] for a in assignees if a["email"] is not None]
    assert len(set(names)) == len(names) and len(set(emails)) == len(emails) > 0  # nobody shares one
    assert len(names) < users and len(emails) < users  # some are null
    assert not any(a["login"] in (a["name"] or "") + (a["email"] or "") for a in assignees)
    teams = [s["assigning_team"] for s in seats if s["assigning_team"]]
    assert all(t["name"] for t in teams)
    parents = [t["parent"] for t in teams]
    assert any(p is None for p in parents) and {p["slug"] for p in parents if p} == {"platform-guild"}


def test_last_activity_is_the_last_active_day_of_the_user_records() -> None:
    data = _data(40)
    days = [TODAY - timedelta(days=back) for back in range(LAST_ACTIVITY_DAYS, 0, -1)]
    last: dict[int, dict] = {}
    for line in data.user_lines(scope="organization", days=days, completeness_for=lambda _: 1.0, start=0, stop=40):
        record = json.loads(line)
        if record["totals_by_ide"]:  # activity in an IDE (a desktop-app-only day has none)
            last[record["user_id"]] = record
    for seat in _seats(data):
        record = last.get(seat["assignee"]["id"])
        if record is None:
            assert seat["last_activity_at"] is None and seat["last_activity_editor"] is None
            continue
        assert seat["last_activity_at"].startswith(record["day"] + "T")
        [ide] = record["totals_by_ide"]
        assert seat["last_activity_editor"] == "/".join(
            (
                ide["ide"],
                ide["last_known_ide_version"]["ide_version"],
                ide["last_known_plugin_version"]["plugin"],
                ide["last_known_plugin_version"]["plugin_version"],
            )
        )


def test_fast_activity_scan_agrees_with_the_day_flags() -> None:
    data = _data(300)
    last = data.last_active_days(today=TODAY)
    for u in range(300):
        expected = next(
            (
                TODAY - timedelta(days=b)
                for b in range(1, LAST_ACTIVITY_DAYS + 1)
                if data._day_flags(TODAY - timedelta(days=b))[0] >> u & 1
            ),
            None,
        )
        assert last[u] == expected, u


def test_never_active_users_show_no_activity_and_lapsed_users_stop_on_the_lapse_day() -> None:
    data = _data(40)
    days = [FIRST_DAY - timedelta(days=30) + timedelta(days=i) for i in range(90)]
    active_days: dict[int, list[str]] = {}
    for line in data.user_lines(scope="organization", days=days, completeness_for=lambda _: 1.0, start=0, stop=40):
        record = json.loads(line)
        if record["totals_by_ide"]:
            active_days.setdefault(record["user_id"], []).append(record["day"])
    for u in (19, 39):
        assert data.identity(u)[1] not in active_days
    for u in (9, 29):
        seen = active_days[data.identity(u)[1]]
        assert seen and max(seen) < data.lapse_day.isoformat()


def test_assigning_team_is_the_squad_of_today_and_seats_follow_the_clock() -> None:
    data = _data(40)
    later = TODAY + timedelta(days=40)
    for today in (TODAY, later):
        for u, seat in enumerate(_seats(data, today)):
            if u % 3 == 0:
                assert seat["assigning_team"] is None
                continue
            squad = data.teams.squad_of(u, today)
            assert seat["assigning_team"]["id"] == squad.team_id
            assert seat["assigning_team"]["slug"] == squad.slug_on(today, data.rename_day)
            assert {"id", "node_id", "slug", "name", "description", "privacy", "url", "html_url"} <= set(
                seat["assigning_team"]
            )
    assert _seats(data) == _seats(data)
    # Lapsed users fall out of the 90-day window as the clock moves on.
    far = FIRST_DAY + timedelta(days=15 + LAST_ACTIVITY_DAYS + 1)
    assert _seats(data, far)[9]["last_activity_at"] is None


def test_enterprise_seats_hold_the_organization_s_and_grant_some_users_twice() -> None:
    data = _data(40)
    entries = len(enterprise_grants(data))
    seats = enterprise_seat_records(data, today=TODAY, base_url="http://emu", start=0, stop=entries)
    assert enterprise_seat_count(data) == len({s["assignee"]["id"] for s in seats}) == 60
    assert [s for s in seats if s["organization"] and s["organization"]["login"] == "acme"] == _seats(data)
    grantors = {}
    for seat in seats:
        grantor = (seat["organization"] or {}).get("login") or seat["assigning_team"]["slug"]
        grantors.setdefault(seat["assignee"]["login"], []).append(grantor)
    assert grantors["dev-00003"] == ["acme", "acme-labs"]  # u = 5
    assert grantors["dev-00004"] == ["acme", data.teams.enterprise_team_of(6, TODAY).slug_on(TODAY, data.rename_day)]
    labs_by_team = data.identity(46)[0]  # a {org}-labs user granted only by an enterprise team
    assert len(grantors[labs_by_team]) == 1 and not grantors[labs_by_team][0].startswith("acme")
    for seat in seats:
        if seat["organization"] is None:
            assert seat["assigning_team"]["type"] == "enterprise"
            assert seat["assigning_team"]["id"] >= 1_000_000_000
    assert seats == enterprise_seat_records(data, today=TODAY, base_url="http://emu", start=0, stop=100)
