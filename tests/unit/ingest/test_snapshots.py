"""collect_snapshot alone over a mock transport, for answers the emulator cannot give (403, timeouts)."""

import json
import sqlite3
from datetime import date

import duckdb
import httpx
import polars as pl
import pytest

from pipelines.config import Secret, Settings
from pipelines.defs.snapshots.checks import SNAPSHOT_CHECKS
from pipelines.ingest.snapshots import SnapshotFailed, SnapshotSettings, SnapshotWarning, collect_snapshot, run_snapshot
from pipelines.service import RetryPolicy, ServiceClient
from pipelines.service.errors import ConfigError, GraphQLError
from pipelines.warehouse import migrate
from pipelines.warehouse.checks import run_checks
from pipelines.warehouse.erasure import Forgotten, Person, person_hashes

DAY = date(2026, 11, 20)
_REPOS = [
    {"id": 1, "full_name": "acme/open", "name": "open", "owner": {"login": "acme", "id": 9}},
    {"id": 2, "full_name": "acme/locked", "name": "locked", "owner": {"login": "acme", "id": 9}},
]
_SEAT = {"assignee": {"id": 5, "login": "ann"}, "plan_type": "business", "last_activity_at": "2026-11-19T10:00:00Z"}
_LIMITS = {"resources": {"core": {"remaining": 10}, "graphql": {"remaining": 5}}}


def _service(request: httpx.Request) -> httpx.Response:
    path = request.url.path
    page = int(request.url.params.get("page", "1"))
    if path == "/rate_limit":
        return httpx.Response(200, json=_LIMITS)
    if path == "/orgs/acme/repos":
        return httpx.Response(200, json=_REPOS if page == 1 else [])
    if path == "/orgs/acme/members":
        return httpx.Response(200, json=[{"id": 5, "login": "ann"}] if page == 1 else [])
    if path == "/orgs/acme/assistant/billing/seats":
        return httpx.Response(200, json={"total_seats": 1, "seats": [_SEAT] if page == 1 else []})
    if path == "/repos/acme/open/issues":
        return httpx.Response(200, json=[{"id": 70, "number": 1}] if page == 1 else [])
    if path == "/repos/acme/locked/issues":
        return httpx.Response(403, json={"message": "Resource not accessible by integration"})
    if path == "/graphql":
        variables = json.loads(request.content)["variables"]
        data = {f"r{i}": {"stargazerCount": i} for i in range(len(variables) // 2)}
        return httpx.Response(200, json={"data": data})
    return httpx.Response(404, json={"message": "Not Found"})


def test_repository_refusing_its_issues_is_kept_with_a_warning(tmp_path):
    settings = Settings(base_url="http://127.0.0.1:9", token=Secret("t"), etag_cache=tmp_path / "cache.sqlite3")
    with ServiceClient(
        config=settings.service_config(), transport=httpx.MockTransport(_service), retry=RetryPolicy(max_attempts=1)
    ) as client:
        result = collect_snapshot(client, settings=SnapshotSettings(orgs=("acme",)), day=DAY)

    assert result.warnings == (SnapshotWarning("acme/locked", "issues", 403, "Resource not accessible by integration"),)
    assert result.frames["repositories"]["repository_id"].to_list() == [1, 2]
    assert result.frames["issues"]["repository_id"].to_list() == [1]
    assert result.frames["repository_stats"]["repository_id"].to_list() == [1, 2]
    assert result.frames["warnings"].select("repository", "status").rows() == [("acme/locked", 403)]


def test_graphql_timeout_halves_the_batch_like_a_502_without_rate_limit_status(tmp_path):
    many = [
        {"id": i, "full_name": f"acme/r{i}", "name": f"r{i}", "owner": {"login": "acme", "id": 9}} for i in range(6)
    ]
    graphql_sizes = []

    def service(request: httpx.Request) -> httpx.Response:
        page = int(request.url.params.get("page", "1"))
        if request.url.path == "/rate_limit":
            return httpx.Response(404, json={"message": "Rate limiting is not enabled."})
        if request.url.path == "/orgs/acme/repos":
            return httpx.Response(200, json=many if page == 1 else [])
        if request.url.path.endswith("/issues"):
            return httpx.Response(200, json=[])
        if request.url.path == "/graphql":
            size = len(json.loads(request.content)["variables"]) // 2
            graphql_sizes.append(size)
            if size > 2:
                raise httpx.ReadTimeout("slow", request=request)
        return _service(request)

    settings = Settings(base_url="http://127.0.0.1:9", token=Secret("t"), etag_cache=tmp_path / "cache.sqlite3")
    with ServiceClient(
        config=settings.service_config(), transport=httpx.MockTransport(service), retry=RetryPolicy(max_attempts=1)
    ) as client:
        result = collect_snapshot(client, settings=SnapshotSettings(orgs=("acme",), graphql_batch_size=6), day=DAY)

    assert graphql_sizes[:3] == [6, 3, 1]
    assert result.frames["repository_stats"].height == 6
    assert result.cost.graphql_batch_failures == graphql_sizes.count(6) + graphql_sizes.count(3)
    assert result.cost.rate_limit_remaining_before is None and result.cost.graphql_cost is None


@pytest.mark.parametrize(
    "error",
    [
        {"type": "FORBIDDEN", "path": ["r1"], "message": "Resource not accessible by integration"},
        {"type": "NOT_FOUND", "message": "Could not resolve to a Repository with the name 'acme/locked'."},
        {"type": "NOT_FOUND", "path": ["r1", "defaultBranchRef"], "message": "Could not resolve to a Ref."},
        {"type": "NOT_FOUND", "path": ["r7"], "message": "Could not resolve to a Repository."},
    ],
    ids=["other_type", "no_path", "below_the_alias", "not_an_alias_of_the_batch"],
)
def test_a_graphql_error_that_is_not_a_missing_repository_of_the_batch_fails_the_run(tmp_path, error):
    def service(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/graphql":
            return httpx.Response(200, json={"data": {"r0": {"stargazerCount": 1}, "r1": None}, "errors": [error]})
        if request.url.path == "/repos/acme/locked/issues":
            return httpx.Response(200, json=[])
        return _service(request)

    settings = Settings(base_url="http://127.0.0.1:9", token=Secret("t"), etag_cache=tmp_path / "cache.sqlite3")
    with (
        ServiceClient(
            config=settings.service_config(), transport=httpx.MockTransport(service), retry=RetryPolicy(max_attempts=1)
        ) as client,
        pytest.raises(GraphQLError) as raised,
    ):
        collect_snapshot(client, settings=SnapshotSettings(orgs=("acme",)), day=DAY)

    assert str(raised.value) == f"POST http://127.0.0.1:9/graphql GraphQL errors: {error['message']}"


def test_settings_come_from_service_org_repos_and_enterprise():
    settings = Settings(orgs=("acme",), repos=("acme/api", "acme/web"), enterprises=("acme-corp",))
    assert SnapshotSettings.from_settings(settings) == SnapshotSettings(
        orgs=("acme",), repositories=("acme/api", "acme/web"), enterprises=("acme-corp",)
    )


def test_settings_without_an_organization_are_refused():
    with pytest.raises(ConfigError, match="SERVICE_ORG"):
        SnapshotSettings.from_settings(Settings())


def _collect(tmp_path, service, *, orgs=("acme",), enterprises=()):
    settings = Settings(base_url="http://127.0.0.1:9", token=Secret("t"), etag_cache=tmp_path / "cache.sqlite3")
    with ServiceClient(
        config=settings.service_config(), transport=httpx.MockTransport(service), retry=RetryPolicy(max_attempts=1)
    ) as client:
        return collect_snapshot(client, settings=SnapshotSettings(orgs=orgs, enterprises=enterprises), day=DAY)


def test_seats_of_every_org_are_collected_with_their_total(tmp_path):
    result = _collect(tmp_path, _service)
    assert result.frames["seats"].select("org_login", "user_id", "login").rows() == [("acme", 5, "ann")]
    assert result.frames["seat_totals"].select("org_login", "total_seats").rows() == [("acme", 1)]


@pytest.mark.parametrize(
    ("status", "message"),
    [(403, "Resource not accessible by integration"), (404, "Not Found")],
    ids=["no_billing_permission", "product_not_enabled"],
)
def test_seats_refused_or_not_enabled_are_a_warning_for_that_org_and_the_rest_lands(tmp_path, status, message):
    def service(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/orgs/globex/assistant/billing/seats":
            return httpx.Response(status, json={"message": message})
        if request.url.path == "/orgs/globex/members":
            return httpx.Response(200, json=[{"id": 6, "login": "bob"}] if request.url.params["page"] == "1" else [])
        if request.url.path == "/orgs/globex/repos":
            return httpx.Response(200, json=[])
        return _service(request)

    result = _collect(tmp_path, service, orgs=("acme", "globex"))

    assert SnapshotWarning("globex", "seats", status, message) in result.warnings
    assert result.frames["warnings"].filter(pl.col("endpoint") == "seats").select("repository", "status").rows() == [
        ("globex", status)
    ]
    assert result.frames["seats"]["org_login"].unique().to_list() == ["acme"]
    assert result.frames["seat_totals"]["org_login"].to_list() == ["acme"]  # no total for globex, not a 0
    assert result.frames["org_members"]["org_login"].unique().sort().to_list() == ["acme", "globex"]


@pytest.mark.parametrize("status", [401, 500])
def test_any_other_seats_failure_fails_the_snapshot_naming_the_org(tmp_path, status):
    def service(request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/billing/seats"):
            return httpx.Response(status, json={"message": "nope"})
        return _service(request)

    with pytest.raises(SnapshotFailed, match=r"organization 'acme' failed listing its seats"):
        _collect(tmp_path, service)


def test_a_seat_without_an_assignee_lands_unassigned_and_a_seat_that_cannot_land_is_left_out_alone(tmp_path):
    """The service documents `assignee` as nullable; a seat whose timestamp is not one (an answer
    the emulator does not give) costs only itself: repositories, issues and members land."""

    def service(request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/billing/seats"):
            page = request.url.params["page"]
            broken = _SEAT | {"assignee": {"id": 6, "login": "bob"}, "created_at": "last spring"}
            seats = [_SEAT, {"plan_type": "business", "assignee": None}, broken] if page == "1" else []
            return httpx.Response(200, json={"total_seats": 3, "seats": seats})
        return _service(request)

    result = _collect(tmp_path, service)
    assert result.frames["seats"]["user_id"].to_list() == [5]
    assert result.frames["unassigned_seats"].select("scope", "scope_name", "seat_number", "plan_type").rows() == [
        ("organization", "acme", 1, "business")
    ]
    (left_out,) = [w for w in result.warnings if w.endpoint == "seat_records"]
    assert left_out == SnapshotWarning(
        "acme",
        "seat_records",
        200,
        "1 left out: seat 2 of organization 'acme': created_at 'last spring' is not a timestamp",
    )
    assert "bob" not in left_out.message
    assert result.frames["repositories"].height == 2 and result.frames["org_members"].height == 1
    assert result.frames["issues"].height == 1


def test_a_record_of_any_listing_that_cannot_land_is_left_out_alone_with_a_warning(tmp_path):
    """A repository without its name, a member without a login, an issue whose number is text: each
    listing's other records land, and so does every other listing of the snapshot."""

    def service(request: httpx.Request) -> httpx.Response:
        page = int(request.url.params.get("page", "1"))
        path = request.url.path
        if path == "/orgs/acme/repos":
            return httpx.Response(200, json=[*_REPOS, {"id": 3, "name": "x"}, "junk"] if page == 1 else [])
        if path == "/orgs/acme/members":
            return httpx.Response(200, json=[{"id": 5, "login": "ann"}, {"id": 6}] if page == 1 else [])
        if path == "/repos/acme/open/issues":
            issues = [{"id": 70, "number": 1}, {"id": 71, "number": "one", "user": {"login": "bob"}}]
            return httpx.Response(200, json=issues if page == 1 else [])
        return _service(request)

    result = _collect(tmp_path, service)
    assert result.frames["repositories"]["repository_id"].to_list() == [1, 2]
    assert result.frames["org_members"]["member_id"].to_list() == [5]
    assert result.frames["issues"]["issue_id"].to_list() == [70]
    assert result.frames["seats"]["user_id"].to_list() == [5]
    left_out = {(w.repository, w.endpoint): w.message for w in result.warnings if w.status == 200}
    assert left_out == {
        ("acme", "repository_records"): "2 left out: repository 2 has no 'full_name'; "
        "repository 3 is not an object of the listing",
        ("acme", "member_records"): "1 left out: member of acme 1 has no 'login'",
        ("acme/open", "issue_records"): "1 left out: issue of acme/open 1 holds a value its table cannot "
        "(ComputeError)",
    }
    assert not any("bob" in message for message in left_out.values())


def _enterprise_service(status: int, seats: list[dict] | None = None):
    def service(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/enterprises/acme-corp/assistant/billing/seats":
            if status != 200:
                return httpx.Response(status, json={"message": "nope"})
            page = request.url.params["page"]
            return httpx.Response(200, json={"total_seats": 1, "seats": seats if page == "1" else []})
        return _service(request)

    return service


def test_enterprise_seats_land_one_row_per_grant_with_the_enterprise_s_total(tmp_path):
    granted = [
        _SEAT | {"organization": {"login": "acme", "id": 9}},
        _SEAT | {"organization": None, "assigning_team": {"id": 3, "slug": "eng", "type": "enterprise"}},
    ]
    result = _collect(tmp_path, _enterprise_service(200, granted), enterprises=("ACME-corp",))
    landed = result.frames["enterprise_seats"].select("enterprise", "user_id", "granted_through", "granted_by")
    assert landed.rows() == [("acme-corp", 5, "enterprise_team", "eng"), ("acme-corp", 5, "organization", "acme")]
    assert result.frames["enterprise_seat_totals"].rows() == [(DAY, "acme-corp", 1, 0)]


@pytest.mark.parametrize("status", [403, 404])
def test_enterprise_seats_refused_or_not_enabled_are_a_warning_for_that_enterprise(tmp_path, status):
    result = _collect(tmp_path, _enterprise_service(status), enterprises=("acme-corp",))
    assert SnapshotWarning("acme-corp", "enterprise_seats", status, "nope") in result.warnings
    assert result.frames["enterprise_seats"].height == 0 and result.frames["enterprise_seat_totals"].height == 0
    assert result.frames["seats"].height == 1


def test_any_other_enterprise_seats_failure_fails_the_snapshot_naming_the_enterprise(tmp_path):
    with pytest.raises(SnapshotFailed, match=r"enterprise 'acme-corp' failed listing its seats"):
        _collect(tmp_path, _enterprise_service(500), enterprises=("acme-corp",))


def test_a_snapshot_leaves_out_the_erased_people_and_the_etag_cache_keeps_no_listing_naming_them(tmp_path):
    bob = {"id": 6, "login": "bob"}
    answers = {
        "/orgs/acme/members": [{"id": 5, "login": "Ann"}, bob],
        "/orgs/acme/assistant/billing/seats": {"total_seats": 2, "seats": [_SEAT, {**_SEAT, "assignee": bob}]},
        "/repos/acme/open/issues": [
            {"id": 70, "number": 1, "user": {"id": 5, "login": "ann"}},
            {"id": 71, "number": 2, "user": bob},
        ],
    }

    def service(request: httpx.Request) -> httpx.Response:
        answer = answers.get(request.url.path)
        if answer is None:
            return _service(request)
        body = (
            answer
            if request.url.params.get("page", "1") == "1"
            else []
            if isinstance(answer, list)
            else {"total_seats": 2, "seats": []}
        )
        return httpx.Response(200, json=body, headers={"ETag": f'"{request.url}"'})

    key = b"a key"
    forgotten = Forgotten(key, frozenset(person_hashes(key, Person(5, "ann"))))
    cache = tmp_path / "cache.sqlite3"
    conn = duckdb.connect()
    migrate(conn)
    settings = Settings(base_url="http://127.0.0.1:9", token=Secret("t"), etag_cache=cache)
    with ServiceClient(
        config=settings.service_config(), transport=httpx.MockTransport(service), retry=RetryPolicy(max_attempts=1)
    ) as client:
        run_snapshot(client, conn, settings=SnapshotSettings(orgs=("acme",)), day=DAY, forgotten=forgotten)

    assert conn.execute("SELECT login FROM snapshots.seats").fetchall() == [("bob",)]
    # The service's total stays; the seat left out is counted beside it, so the check adds up.
    assert conn.execute("SELECT total_seats, erased_seats FROM snapshots.seat_totals").fetchall() == [(2, 1)]
    (complete,) = run_checks(conn, [check for check in SNAPSHOT_CHECKS if check.name == "seat_snapshot_complete"])
    assert complete.passed
    assert conn.execute("SELECT login FROM snapshots.org_members").fetchall() == [("bob",)]
    # The issue is the repository's: it stays, without its author.
    assert conn.execute("SELECT issue_id, user_id, user_login FROM snapshots.issues ORDER BY 1").fetchall() == [
        (70, None, None),
        (71, 6, "bob"),
    ]
    with sqlite3.connect(cache) as db:
        bodies = [bytes(body) for (body,) in db.execute("SELECT body FROM conditional_cache")]
    assert bodies, "listings that name nobody erased stay cached"
    assert not [body for body in bodies if b'"ann"' in body.lower()]
