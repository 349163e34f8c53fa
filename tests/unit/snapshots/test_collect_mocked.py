"""collect_snapshot alone over a mock transport, for answers the emulator cannot give (403, timeouts)."""

import json
from datetime import date

import httpx

from pipelines.config import Secret, Settings
from pipelines.service.client import RetryPolicy, ServiceClient
from pipelines.snapshots import SnapshotSettings, SnapshotWarning, collect_snapshot

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
    with ServiceClient(settings=settings, transport=httpx.MockTransport(_service), retry=RetryPolicy(max_attempts=1)) as client:
        result = collect_snapshot(client, settings=SnapshotSettings(orgs=("acme",)), day=DAY)

    assert result.warnings == (
        SnapshotWarning("acme/locked", "issues", 403, "Resource not accessible by integration"),
    )
    assert result.frames["repositories"]["repository_id"].to_list() == [1, 2]
    assert result.frames["issues"]["repository_id"].to_list() == [1]
    assert result.frames["repository_stats"]["repository_id"].to_list() == [1, 2]
    assert result.frames["warnings"].select("repository", "status").rows() == [("acme/locked", 403)]


def test_graphql_timeout_halves_the_batch_like_a_502_without_rate_limit_status(tmp_path):
    many = [{"id": i, "full_name": f"acme/r{i}", "name": f"r{i}", "owner": {"login": "acme", "id": 9}} for i in range(6)]
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
    with ServiceClient(settings=settings, transport=httpx.MockTransport(service), retry=RetryPolicy(max_attempts=1)) as client:
        result = collect_snapshot(client, settings=SnapshotSettings(orgs=("acme",), graphql_batch_size=6), day=DAY)

    assert graphql_sizes[:3] == [6, 3, 1]
    assert result.frames["repository_stats"].height == 6
    assert result.cost.graphql_batch_failures == graphql_sizes.count(6) + graphql_sizes.count(3)
    assert result.cost.rate_limit_remaining_before is None and result.cost.graphql_cost is None
