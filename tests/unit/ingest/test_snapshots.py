"""collect_snapshot alone over a mock transport, for answers the emulator cannot give (403, timeouts)."""

import json
from datetime import date

import httpx
import pytest

from pipelines.config import Secret, Settings
from pipelines.ingest.snapshots import SnapshotSettings, SnapshotWarning, collect_snapshot
from pipelines.service import RetryPolicy, ServiceClient
from pipelines.service.errors import ConfigError, GraphQLError

DAY = date(2026, 11, 20)
_REPOS = [
    {"id": 1, "full_name": "acme/open", "name": "open", "owner": {"login": "acme", "id": 9}},
    {"id": 2, "full_name": "acme/locked", "name": "locked", "owner": {"login": "acme", "id": 9}},
]
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

    assert result.warnings == (
        SnapshotWarning("acme/locked", "issues", 403, "Resource not accessible by integration"),
    )
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


def test_settings_come_from_service_org_and_repos():
    settings = Settings(orgs=("acme",), repos=("acme/api", "acme/web"))
    assert SnapshotSettings.from_settings(settings) == SnapshotSettings(
        orgs=("acme",), repositories=("acme/api", "acme/web")
    )


def test_settings_without_an_organization_are_refused():
    with pytest.raises(ConfigError, match="SERVICE_ORG"):
        SnapshotSettings.from_settings(Settings())
