"""The emulator's teams: who is on which team each day, and the user-teams report lines."""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from datetime import date, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from emulator.reportdata import ReportData
from emulator.teams import (
    ENTERPRISE_PILOT_SLUG,
    GUILD_SLUG,
    MIN_LISTED_MEMBERS,
    ORG_TEAM_IDS,
    PILOT_SLUG,
    RENAMED_ENTERPRISE_NEW_SLUG,
    RENAMED_ENTERPRISE_OLD_SLUG,
    RENAMED_SQUAD_NEW_SLUG,
    RENAMED_SQUAD_OLD_SLUG,
    TeamMembership,
)

FIRST_DAY = date(2026, 9, 1)
HISTORY = [FIRST_DAY + timedelta(days=i) for i in range(60)]
SCOPES = ("organization", "enterprise")
FIELDS = {
    "organization": {"user_id", "user_login", "day", "organization_id", "enterprise_id", "team_id", "slug"},
    "enterprise": {"user_id", "user_login", "day", "enterprise_id", "team_id", "slug"},
}


def _data(users: int = 40, seed: int = 7) -> ReportData:
    return ReportData(seed=seed, users=users, org="acme", enterprise="acme-corp", first_day=FIRST_DAY)


@pytest.fixture(scope="module")
def data() -> ReportData:
    return _data()


def _teams_of(data: ReportData, *, scope: str, day: date, user_id: int) -> dict[int, str]:
    return {m.team_id: m.slug for m in data.team_members(scope=scope, day=day) if m.user_id == user_id}


def _user_id(data: ReportData, u: int) -> int:
    return data.identity(u)[1]


@settings(max_examples=25, deadline=None)
@given(
    users=st.integers(min_value=1, max_value=120),
    day_index=st.integers(min_value=-5, max_value=70),
    scope=st.sampled_from(SCOPES),
)
def test_a_team_under_five_members_is_left_out_of_the_report(users: int, day_index: int, scope: str) -> None:
    data = _data(users=users)
    day = FIRST_DAY + timedelta(days=day_index)
    members = data.team_members(scope=scope, day=day)
    sizes = Counter(m.team_id for m in members)
    assert all(m.listed == (sizes[m.team_id] >= MIN_LISTED_MEMBERS) for m in members)
    lines = [json.loads(line) for line in data.user_teams_lines(scope=scope, day=day)]
    assert [(r["user_id"], r["team_id"]) for r in lines] == [(m.user_id, m.team_id) for m in members if m.listed]
    assert all(sizes[r["team_id"]] >= MIN_LISTED_MEMBERS for r in lines)


def test_pilot_crosses_the_threshold_on_its_listed_from_day(data: ReportData) -> None:
    pilot = data.teams.team("organization", PILOT_SLUG).team_id
    assert data.pilot_listed_from == FIRST_DAY + timedelta(days=15)
    sizes = [sum(m.team_id == pilot for m in data.team_members(scope="organization", day=d)) for d in HISTORY]
    assert sizes[0] == 2 and max(sizes) == 8 and sizes == sorted(sizes)
    for day, size in zip(HISTORY, sizes, strict=True):
        listed = {r["team_id"] for r in map(json.loads, data.user_teams_lines(scope="organization", day=day))}
        assert (pilot in listed) == (day >= data.pilot_listed_from) == (size >= MIN_LISTED_MEMBERS)


def test_mover_changes_squad_on_the_move_day(data: ReportData) -> None:
    assert data.team_move_day == FIRST_DAY + timedelta(days=20)
    mover = _user_id(data, 7)
    before = _teams_of(data, scope="organization", day=data.team_move_day - timedelta(days=1), user_id=mover)
    after = _teams_of(data, scope="organization", day=data.team_move_day, user_id=mover)
    assert len(before) == len(after) == 1 and before.keys() != after.keys()
    assert all(s.startswith("squad-") or s == RENAMED_SQUAD_NEW_SLUG for s in (*before.values(), *after.values()))
    # A user who does not move keeps the squad.
    stayer = _user_id(data, 8)
    assert (
        _teams_of(data, scope="organization", day=HISTORY[0], user_id=stayer).keys()
        == _teams_of(data, scope="organization", day=HISTORY[-1], user_id=stayer).keys()
    )
    # The enterprise moves the same user from one engineering team to the next.
    ent_before = _teams_of(data, scope="enterprise", day=data.team_move_day - timedelta(days=1), user_id=mover)
    ent_after = _teams_of(data, scope="enterprise", day=data.team_move_day, user_id=mover)
    assert len(ent_before.keys() & ent_after.keys()) == 1  # the business team stays
    assert ent_before != ent_after


def test_an_organization_s_team_lines_name_its_enterprise_too(data: ReportData) -> None:
    """As the service documents for an organization in an enterprise: both ids on its lines."""
    org = [json.loads(line) for line in data.user_teams_lines(scope="organization", day=HISTORY[30])]
    ent = [json.loads(line) for line in data.user_teams_lines(scope="enterprise", day=HISTORY[30])]
    assert org and {(r["organization_id"], r["enterprise_id"]) for r in org} == {
        (data.organization_id, data.enterprise_id)
    }
    assert ent and all("organization_id" not in r and r["enterprise_id"] == data.enterprise_id for r in ent)


def test_a_user_on_two_teams_has_one_line_per_team(data: ReportData) -> None:
    guild = data.teams.team("organization", GUILD_SLUG).team_id
    lines = [json.loads(line) for line in data.user_teams_lines(scope="organization", day=HISTORY[30])]
    per_user = defaultdict(set)
    for r in lines:
        per_user[r["user_id"]].add(r["team_id"])
    two = per_user[_user_id(data, 5)]  # 5 % 4 == 1: squad and guild
    assert len(two) == 2 and guild in two
    assert per_user[_user_id(data, 6)] and guild not in per_user[_user_id(data, 6)]
    pilot = data.teams.team("enterprise", ENTERPRISE_PILOT_SLUG).team_id
    ent = [json.loads(line) for line in data.user_teams_lines(scope="enterprise", day=HISTORY[30])]
    # Every enterprise user is on a business team and an engineering team.
    assert set(Counter(r["user_id"] for r in ent if r["team_id"] != pilot).values()) == {2}


@pytest.mark.parametrize(
    ("scope", "old", "new"),
    [
        ("organization", RENAMED_SQUAD_OLD_SLUG, RENAMED_SQUAD_NEW_SLUG),
        ("enterprise", RENAMED_ENTERPRISE_OLD_SLUG, RENAMED_ENTERPRISE_NEW_SLUG),
    ],
)
def test_slug_change_keeps_the_team_id(data: ReportData, scope: str, old: str, new: str) -> None:
    team_id = data.teams.team(scope, old).team_id
    assert HISTORY[0] < data.rename_day <= HISTORY[-1]
    for day in HISTORY:
        slugs = {
            r["slug"] for r in map(json.loads, data.user_teams_lines(scope=scope, day=day)) if r["team_id"] == team_id
        }
        assert slugs == ({new} if day >= data.rename_day else {old})


@pytest.mark.parametrize("scope", SCOPES)
def test_every_team_line_user_is_in_that_days_user_level_report(data: ReportData, scope: str) -> None:
    for day in (HISTORY[0], data.rename_day, HISTORY[-1]):
        users = {
            (r["user_id"], r["user_login"]): r
            for r in map(
                json.loads,
                data.user_lines(
                    scope=scope, days=[day], completeness_for=lambda _: 1.0, start=0, stop=data.user_count(scope=scope)
                ),
            )
        }
        lines = [json.loads(line) for line in data.user_teams_lines(scope=scope, day=day)]
        assert lines
        id_field = "organization_id" if scope == "organization" else "enterprise_id"
        for line in lines:
            assert set(line) == FIELDS[scope]
            assert isinstance(line["user_id"], int) and isinstance(line["team_id"], int)
            record = users[(line["user_id"], line["user_login"])]
            assert line["day"] == record["day"] and line[id_field] == record[id_field]


def test_team_ids_are_distinct_and_enterprise_ids_never_organization_ids() -> None:
    for users in (1, 12, 40, 300):
        data = _data(users=users)
        org = [t.team_id for t in data.teams.teams("organization")]
        ent = [t.team_id for t in data.teams.teams("enterprise")]
        assert len(set(org)) == len(org) and len(set(ent)) == len(ent)
        assert not set(org) & set(ent)
        assert all(ORG_TEAM_IDS[0] <= t < ORG_TEAM_IDS[1] for t in org)
        squads = [t for t in data.teams.teams("organization") if t.kind == "squad"]
        assert len(squads) == max(3, users // 12)
    slugs = {t.slug for t in _data().teams.teams("enterprise") if t.kind == "business"}
    assert slugs == {"business-acme", "business-acme-labs"}


def test_every_org_user_is_on_exactly_one_squad_every_day(data: ReportData) -> None:
    squads = {t.team_id for t in data.teams.teams("organization") if t.kind == "squad"}
    for day in (HISTORY[0], HISTORY[-1]):
        on = Counter(m.user_id for m in data.team_members(scope="organization", day=day) if m.team_id in squads)
        assert sorted(on) == sorted(_user_id(data, u) for u in range(data.users)) and set(on.values()) == {1}


def test_teams_are_deterministic_and_follow_the_seed() -> None:
    day = HISTORY[25]
    assert b"".join(_data().user_teams_lines(scope="enterprise", day=day)) == b"".join(
        _data().user_teams_lines(scope="enterprise", day=day)
    )
    assert _data().team_members(scope="organization", day=day) == _data().team_members(scope="organization", day=day)
    assert all(isinstance(m, TeamMembership) for m in _data().team_members(scope="organization", day=day))
    assert {t.team_id for t in _data(seed=1).teams.teams("organization")} != {
        t.team_id for t in _data(seed=2).teams.teams("organization")
    }


def test_teams_change_no_byte_of_the_user_level_report() -> None:
    def report() -> bytes:
        data = _data()
        return b"".join(
            data.user_lines(
                scope="enterprise",
                days=HISTORY[18:22],
                completeness_for=lambda _: 1.0,
                start=0,
                stop=data.user_count(scope="enterprise"),
            )
        )

    data = _data()
    for day in HISTORY[18:22]:
        list(data.user_teams_lines(scope="enterprise", day=day))
    after = b"".join(
        data.user_lines(
            scope="enterprise",
            days=HISTORY[18:22],
            completeness_for=lambda _: 1.0,
            start=0,
            stop=data.user_count(scope="enterprise"),
        )
    )
    assert after == report()
