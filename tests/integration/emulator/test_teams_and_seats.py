"""The extensions over HTTP in both dialects: the user-teams report and the seats listing
(docs/extensions.md)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date, datetime, timedelta

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from emulator import EmulatorConfig, FaultSpec, RunningEmulator, running_emulator

from .conftest import TODAY

TEAM_FIELDS = {
    "organization": {"user_id", "user_login", "day", "organization_id", "enterprise_id", "team_id", "slug"},
    "enterprise": {"user_id", "user_login", "day", "enterprise_id", "team_id", "slug"},
}
SEAT_FIELDS = {
    "assignee",
    "organization",
    "assigning_team",
    "created_at",
    "updated_at",
    "pending_cancellation_date",
    "last_activity_at",
    "last_activity_editor",
    "last_authenticated_at",
    "plan_type",
}
HISTORY_DAYS = 60


@dataclass
class Served:
    emu: RunningEmulator
    client: httpx.Client
    product: str

    def reports(self, scope: str) -> str:
        root = "/orgs/acme" if scope == "organization" else "/enterprises/acme-corp"
        return f"{root}/{self.product}/metrics/reports"

    @property
    def seats(self) -> str:
        return f"/orgs/acme/{self.product}/billing/seats"

    @property
    def enterprise_seats(self) -> str:
        return f"/enterprises/acme-corp/{self.product}/billing/seats"


def _headers(dialect: str, token: str) -> dict[str, str]:
    if dialect == "github":
        return {
            "Authorization": f"Bearer {token}",
            "Accept": "application/vnd.github+json",
            "X-GitHub-Api-Version": "2022-11-28",
        }
    return {
        "Authorization": f"token {token}",
        "Accept": "application/vnd.service+json",
        "X-Service-Api-Version": "2026-03-10",
    }


@pytest.fixture(scope="module", params=["service", "github"])
def served(request: pytest.FixtureRequest) -> Iterator[Served]:
    dialect = request.param
    config = EmulatorConfig(
        seed=7, users=40, repos=1, issues_per_repo=1, today=TODAY, dialect=dialect, user_lines_per_file=25
    )
    with (
        running_emulator(config) as emu,
        httpx.Client(base_url=emu.base_url, headers=_headers(dialect, emu.credentials["token"]), timeout=30) as client,
    ):
        yield Served(emu, client, "copilot" if dialect == "github" else "assistant")


def _ndjson(link: str) -> list[dict]:
    response = httpx.get(link)
    assert response.status_code == 200
    assert int(response.headers["content-length"]) == len(response.content)
    assert response.content.endswith(b"\n")
    return [json.loads(line) for line in response.content.splitlines()]


def _report(served: Served, scope: str, name: str, day: date) -> list[dict]:
    meta = served.client.get(f"{served.reports(scope)}/{name}", params={"day": day.isoformat()})
    assert meta.status_code == 200, meta.text
    body = meta.json()
    assert set(body) == {"download_links", "report_day"} and body["report_day"] == day.isoformat()
    return [row for link in body["download_links"] for row in _ndjson(link)]


def _all_seats(served: Served, per_page: int, *, path: str | None = None) -> tuple[int, list[dict], int]:
    url: str | None = f"{path or served.seats}?per_page={per_page}"
    seats: list[dict] = []
    totals = set()
    pages = 0
    while url:
        response = served.client.get(url)
        assert response.status_code == 200
        body = response.json()
        assert set(body) == {"total_seats", "seats"} and len(body["seats"]) <= per_page
        totals.add(body["total_seats"])
        seats += body["seats"]
        pages += 1
        url = response.links.get("next", {}).get("url")
    [total] = totals
    return total, seats, pages


@pytest.mark.parametrize("scope", ["organization", "enterprise"])
def test_user_teams_report_downloads_as_ndjson_with_the_contract_fields(served: Served, scope: str) -> None:
    day = TODAY - timedelta(days=2)
    rows = _report(served, scope, "user-teams-1-day", day)
    assert rows
    for row in rows:
        assert set(row) == TEAM_FIELDS[scope]
        assert isinstance(row["user_id"], int) and isinstance(row["team_id"], int)
        assert row["day"] == day.isoformat() and isinstance(row["slug"], str)
    users = {(r["user_id"], r["user_login"]): r for r in _report(served, scope, "users-1-day", day)}
    id_field = "organization_id" if scope == "organization" else "enterprise_id"
    for row in rows:
        assert users[(row["user_id"], row["user_login"])][id_field] == row[id_field]
    assert len({(r["user_id"], r["team_id"]) for r in rows}) == len(rows)


@pytest.mark.parametrize("scope", ["organization", "enterprise"])
def test_user_teams_report_is_not_available_when_users_1_day_is_not(served: Served, scope: str) -> None:
    not_yet = 204 if scope == "organization" else 404
    for day, status in (
        (TODAY, not_yet),
        (TODAY + timedelta(days=3), not_yet),
        (TODAY - timedelta(days=HISTORY_DAYS + 1), 404),
    ):
        for name in ("users-1-day", "user-teams-1-day"):
            response = served.client.get(f"{served.reports(scope)}/{name}", params={"day": day.isoformat()})
            assert response.status_code == status, (name, day)
    assert served.client.get(f"{served.reports(scope)}/user-teams-28-day/latest").status_code == 404
    served.emu.set_today(TODAY + timedelta(days=1))  # the clock makes today's report available
    try:
        assert _report(served, scope, "user-teams-1-day", TODAY)
    finally:
        served.emu.set_today(TODAY)
    name = "acme" if scope == "organization" else "acme-corp"
    served.emu.set_policy(scope=scope, name=name, enabled=False)
    try:
        for report in ("users-1-day", "user-teams-1-day"):
            response = served.client.get(
                f"{served.reports(scope)}/{report}", params={"day": (TODAY - timedelta(days=5)).isoformat()}
            )
            assert response.status_code == 403 and "policy" in response.json()["message"]
    finally:
        served.emu.set_policy(scope=scope, name=name, enabled=True)


def test_user_teams_downloads_take_faults_like_other_downloads(served: Served) -> None:
    meta = served.client.get(
        f"{served.reports('organization')}/user-teams-1-day", params={"day": (TODAY - timedelta(days=6)).isoformat()}
    ).json()
    link = meta["download_links"][0]
    served.emu.set_faults(FaultSpec(truncate_rate=1.0))
    try:
        with pytest.raises(httpx.RemoteProtocolError), httpx.stream("GET", link) as response:
            b"".join(response.iter_raw())
    finally:
        served.emu.set_faults(FaultSpec())
    assert _ndjson(link)
    tampered = link.replace("user-teams", "users")
    assert httpx.get(tampered).status_code == 403


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(per_page=st.integers(min_value=1, max_value=100))
def test_seats_paged_add_up_to_total_seats(served: Served, per_page: int) -> None:
    total, seats, pages = _all_seats(served, per_page)
    assert total == len(seats) == 40
    assert pages == -(-total // per_page)
    assert len({s["assignee"]["id"] for s in seats}) == total


def test_seats_default_page_size_and_holders_are_the_org_members(served: Served) -> None:
    first = served.client.get(served.seats)
    assert len(first.json()["seats"]) == 40 and "link" not in first.headers  # default 50 per page
    assert len(served.client.get(served.seats, params={"per_page": 500}).json()["seats"]) == 40
    members = served.client.get("/orgs/acme/members", params={"per_page": 100}).json()
    _, seats, _ = _all_seats(served, 15)
    # The member's user object, with the person's name and email as a seat documents them.
    assert [{k: v for k, v in s["assignee"].items() if k not in ("name", "email")} for s in seats] == members
    for seat in seats:
        assert set(seat) == SEAT_FIELDS
        assert seat["plan_type"] in ("business", "enterprise", "unknown")
        assert seat["organization"]["login"] == "acme"
        team = seat["assigning_team"]
        if team is not None:
            assert {"id", "node_id", "slug", "name", "description", "privacy", "url", "html_url"} <= set(team)
            assert team["type"] == "organization"
    # The team a seat came through is the user's squad: it is on that user's lines of the latest report.
    latest = _report(served, "organization", "user-teams-1-day", TODAY - timedelta(days=1))
    teams_of: dict[int, set[int]] = {}
    for row in latest:
        teams_of.setdefault(row["user_id"], set()).add(row["team_id"])
    by_team = [s for s in seats if s["assigning_team"]]
    assert by_team
    for seat in by_team:
        assert seat["assigning_team"]["id"] in teams_of[seat["assignee"]["id"]]


def test_last_activity_agrees_with_the_user_level_reports(served: Served) -> None:
    days = [TODAY - timedelta(days=back) for back in range(HISTORY_DAYS, 0, -1)]
    last: dict[int, dict] = {}
    for day in days:
        for record in _report(served, "organization", "users-1-day", day):
            if record["totals_by_ide"]:  # active that day (counts of the newest days still grow)
                last[record["user_id"]] = record
    _, seats, _ = _all_seats(served, 100)
    for seat in seats:
        record = last.get(seat["assignee"]["id"])
        if record is None:  # not active in the reports' 60 days: null, or older than the reports
            raw = seat["last_activity_at"]
            assert raw is None or datetime.fromisoformat(raw).date() < days[0]
            continue
        assert datetime.fromisoformat(seat["last_activity_at"]).date().isoformat() == record["day"]
        [ide] = record["totals_by_ide"]
        assert seat["last_activity_editor"] == "/".join(
            (
                ide["ide"],
                ide["last_known_ide_version"]["ide_version"],
                ide["last_known_plugin_version"]["plugin"],
                ide["last_known_plugin_version"]["plugin_version"],
            )
        )


def test_inactive_never_active_and_pending_seats_exist(served: Served) -> None:
    _, seats, _ = _all_seats(served, 100)
    active_days = {
        s["assignee"]["login"]: datetime.fromisoformat(s["last_activity_at"]).date()
        for s in seats
        if s["last_activity_at"]
    }
    assert any((TODAY - day).days > 30 for day in active_days.values())
    never = [s for s in seats if s["last_activity_at"] is None]
    assert never and all(s["last_activity_editor"] is None for s in never)
    pending = [s for s in seats if s["pending_cancellation_date"]]
    assert pending and all(date.fromisoformat(s["pending_cancellation_date"]) > TODAY for s in pending)


def test_seats_refuse_the_limited_token_and_unknown_orgs(served: Served) -> None:
    limited = _headers("github" if served.product == "copilot" else "service", served.emu.credentials["limited_token"])
    response = httpx.get(served.emu.base_url + served.seats, headers=limited)
    assert response.status_code == 403 and response.json()["message"]
    unknown = served.client.get(served.seats.replace("/orgs/acme/", "/orgs/nope/"))
    assert unknown.status_code == 404 and unknown.json() == {"message": "Not Found"}
    assert httpx.get(served.emu.base_url + served.seats).status_code == 401
    requests = served.emu.stats()["requests"]
    assert requests.get("seats 403", 0) >= 1 and requests.get("seats 404", 0) >= 1 and requests.get("seats 200")


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(per_page=st.integers(min_value=1, max_value=100))
def test_enterprise_seats_page_by_entry_and_count_each_user_once(served: Served, per_page: int) -> None:
    total, seats, pages = _all_seats(served, per_page, path=served.enterprise_seats)
    holders = [s["assignee"]["id"] for s in seats]
    assert total == len(set(holders)) == 60  # 40 of the organization, 20 of {org}-labs
    assert len(seats) > total and pages == -(-len(seats) // per_page)


def test_enterprise_seats_are_one_per_granting_organization_or_enterprise_team(served: Served) -> None:
    _, seats, _ = _all_seats(served, 100, path=served.enterprise_seats)
    grants = [
        (s["assignee"]["id"], (s["organization"] or {}).get("login"), (s["assigning_team"] or {}).get("id"))
        for s in seats
    ]
    assert len(set(grants)) == len(grants)
    for seat in seats:
        assert set(seat) == SEAT_FIELDS
    by_user: dict[int, list[dict]] = {}
    for seat in seats:
        by_user.setdefault(seat["assignee"]["id"], []).append(seat)
    two_orgs = [
        u
        for u, mine in by_user.items()
        if {(s["organization"] or {}).get("login") for s in mine} >= {"acme", "acme-labs"}
    ]
    assert two_orgs
    by_team = [s for s in seats if s["organization"] is None]
    assert by_team and all(s["assigning_team"]["type"] == "enterprise" for s in by_team)
    assert {s["assigning_team"]["type"] for s in seats if s["organization"] and s["assigning_team"]} == {"organization"}
    # The organization's own seats are listed as its listing has them.
    _, org_seats, _ = _all_seats(served, 100)
    assert [s for s in seats if (s["organization"] or {}).get("login") == "acme"] == org_seats
    # A user's activity is the user's, the same on each of their seats.
    for mine in by_user.values():
        assert len({(s["last_activity_at"], s["last_authenticated_at"]) for s in mine}) == 1


def test_enterprise_seats_answer_304_to_their_etag_and_refuse_like_the_organization_s(served: Served) -> None:
    first = served.client.get(served.enterprise_seats)
    again = served.client.get(served.enterprise_seats, headers={"If-None-Match": first.headers["etag"]})
    assert first.status_code == 200 and again.status_code == 304
    limited = _headers("github" if served.product == "copilot" else "service", served.emu.credentials["limited_token"])
    refused = httpx.get(served.emu.base_url + served.enterprise_seats, headers=limited)
    assert refused.status_code == 403 and "enterprise owner" in refused.json()["message"]
    unknown = served.client.get(served.enterprise_seats.replace("acme-corp", "nope"))
    assert unknown.status_code == 404
