"""The webhook refresh over loopback: deliveries from the emulator reach the real receiver's spool,
the sensors' run requests run through Dagster, and the emulator's request log says what was fetched.

A refresh takes again only the repositories the deliveries named (the day's other rows stay), and
one burst of deliveries is one snapshot run and one publish."""

import re
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

import dagster as dg
import duckdb
import httpx
import pytest

from pipelines.config import Secret, Settings
from pipelines.definitions import build_definitions
from pipelines.defs._automation import Automation
from pipelines.defs.events.automation import build_events_automation
from pipelines.defs.snapshots.days import add_snapshot_day
from pipelines.service import ServiceClient
from pipelines.service.repos import create_issue, create_pull_request
from pipelines.webhooks.app import ReceiverConfig, running_receiver
from pipelines.webhooks.segments import read_segment, segments
from pipelines.webhooks.verify import sign

webhook_spool_sensor, snapshot_refresh_sensor = build_events_automation(Automation())
PUBLISHED = dg.AssetKey(["serving", "warehouse_copy"])
# Rows a refresh of one repository must leave as they were: the other repositories' and the day's
# members and seats (a repository's rows are keyed by its id; issues name it).
_OTHER_ROWS = {
    "repositories": "SELECT * FROM snapshots.repositories WHERE full_name <> $repo",
    "repository_stats": "SELECT * FROM snapshots.repository_stats WHERE full_name <> $repo",
    "issues": "SELECT * FROM snapshots.issues WHERE repository_full_name <> $repo",
    "org_members": "SELECT * FROM snapshots.org_members",
    "seats": "SELECT * FROM snapshots.seats",
    "seat_totals": "SELECT * FROM snapshots.seat_totals",
}


def _repositories(emulator) -> list[str]:
    creds = emulator.credentials
    with ServiceClient(config=_settings(emulator).service_config()) as client:
        return sorted(repo["full_name"] for repo in client.get_json(path=f"/orgs/{creds['org']}/repos"))


def _settings(emulator) -> Settings:
    creds = emulator.credentials
    return Settings(base_url=creds["base_url"], token=Secret(creds["token"]), etag_cache=None)


def _spooled(spool: Path) -> int:
    return sum(1 for segment in segments(spool) for _ in read_segment(segment)) if spool.is_dir() else 0


@contextmanager
def _receiving(emulator, spool: Path) -> Iterator[str]:
    """The real receiver on loopback, the emulator's hook pointed at it; its URL."""
    secret = emulator.credentials["webhook_secret"]
    with running_receiver(config=ReceiverConfig(secret=secret.encode(), spool_dir=spool)) as url:
        emulator.add_hook(url=f"{url}/webhooks", secret=secret, events=("issues", "pull_request"))
        yield url


def _wait_for_spool(spool: Path, count: int) -> None:
    deadline = time.monotonic() + 30  # a bound on waiting, not a measured duration
    while time.monotonic() < deadline:
        if _spooled(spool) >= count:
            return
        time.sleep(0.05)
    pytest.fail(f"only {_spooled(spool)} of {count} deliveries reached the spool")


def _burst(emulator, spool: Path, repositories: list[str]) -> list[int]:
    """An issue opened in each repository and a pull request in the first (one delivery each); the
    issues' numbers."""
    before = _spooled(spool)
    with ServiceClient(config=_settings(emulator).service_config()) as client:
        numbers = []
        for full_name in repositories:
            owner, name = full_name.split("/")
            numbers.append(create_issue(client, owner=owner, name=name, title="agent rollout feedback")["number"])
        owner, name = repositories[0].split("/")
        create_pull_request(client, owner=owner, name=name, title="pin agent", head="topic", base="main")
    _wait_for_spool(spool, before + len(repositories) + 1)
    return numbers


def _tick(sensor, instance, defs, cursor: str | None = None) -> tuple[list[dg.RunRequest], str | None]:
    """One evaluation as the daemon makes it: the run requests, whatever form the sensor gives
    them in, and the cursor it leaves."""
    storage = defs.resources["storage"]
    with dg.build_sensor_context(
        instance=instance, cursor=cursor, repository_def=defs.get_repository_def(), resources={"storage": storage}
    ) as context:
        result = sensor(context)
        if isinstance(result, dg.SensorResult):
            return list(result.run_requests or ()), result.cursor if result.cursor is not None else context.cursor
        requests = [] if result is None or isinstance(result, dg.SkipReason) else [result]
        if requests and not isinstance(result, dg.RunRequest):
            requests = [r for r in result if isinstance(r, dg.RunRequest)]
        return requests, context.cursor


def _run(defs, instance, request: dg.RunRequest, job_name: str) -> None:
    job = defs.resolve_job_def(request.job_name or job_name)
    assert job.execute_in_process(
        instance=instance,
        partition_key=request.partition_key,
        run_config=request.run_config,
        asset_selection=request.asset_selection,
        tags=request.tags,
    ).success


def _after_the_burst(defs, instance) -> list[dg.RunRequest]:
    """The spool sensor's load, then every run the refresh sensor requests (a run key once, as the
    daemon launches it), each run: those requests."""
    (load,), _ = _tick(webhook_spool_sensor, instance, defs)
    _run(defs, instance, load, "webhook_events_job")
    requested: list[dg.RunRequest] = []
    cursor = None
    for _ in range(3):  # ticks after the burst: the first requests, the others find nothing new
        requests, cursor = _tick(snapshot_refresh_sensor, instance, defs, cursor)
        for request in requests:
            if request.run_key not in {r.run_key for r in requested}:
                _run(defs, instance, request, "snapshots_job")
                requested.append(request)
    return requested


def _paths(emulator) -> Counter[str]:
    return Counter(emulator.stats()["paths"])


def _fetched_repositories(served: Counter[str], repositories: list[str]) -> set[str]:
    """The repositories any request the emulator served named (a REST path, a GraphQL repository)."""
    return {repo for repo in repositories for line in served if re.search(rf"[ /]{re.escape(repo)}[ /]", line)}


def _publishes(instance) -> int:
    return len(instance.fetch_materializations(PUBLISHED, limit=1000).records)


def _lake_versions(pipeline_env) -> int:
    return len(list(Path(pipeline_env["LAKE_PATH"]).glob("publish=*/_published")))


def _take_today(defs, instance) -> str:
    today = datetime.now(UTC).date()
    add_snapshot_day(instance, today)
    assert (
        defs.resolve_job_def("snapshots_job")
        .execute_in_process(instance=instance, partition_key=today.isoformat())
        .success
    )
    return today.isoformat()


def _rows(pipeline_env, repo: str) -> dict[str, list[tuple]]:
    with duckdb.connect(pipeline_env["WAREHOUSE_PATH"], read_only=True) as conn:
        return {
            table: sorted(conn.execute(query, {"repo": repo} if "$repo" in query else {}).fetchall())
            for table, query in _OTHER_ROWS.items()
        }


def test_a_delivery_refresh_fetches_only_the_repositories_named_and_keeps_the_other_rows_of_the_day(
    emulator, pipeline_env, instance
):
    defs = build_definitions(Settings.from_env())
    spool = Path(pipeline_env["WEBHOOK_SPOOL_DIR"])
    repositories = _repositories(emulator)
    named = repositories[0]
    served_before = _paths(emulator)
    today = _take_today(defs, instance)
    # A scheduled or manual snapshot takes every repository.
    assert _fetched_repositories(_paths(emulator) - served_before, repositories) == set(repositories)
    before = _rows(pipeline_env, named)

    with _receiving(emulator, spool) as receiver:
        (number,) = _burst(emulator, spool, [named])
        # A delivery naming a repository of no configured organization: nothing of it is fetched.
        body = b'{"action": "opened", "repository": {"full_name": "elsewhere/widgets"}}'
        secret = emulator.credentials["webhook_secret"].encode()
        assert (
            httpx.post(
                f"{receiver}/webhooks",
                content=body,
                headers={
                    "content-type": "application/json",
                    "x-service-event": "issues",
                    "x-service-delivery": "elsewhere-1",
                    "x-hub-signature-256": sign(secret=secret, body=body),
                },
            ).status_code
            == 200
        )
    served_before = _paths(emulator)
    (refresh,) = _after_the_burst(defs, instance)
    served = _paths(emulator) - served_before

    assert (refresh.job_name or "snapshots_job", refresh.partition_key) == ("snapshots_job", today)
    assert _fetched_repositories(served, [*repositories, "elsewhere/widgets"]) == {named}
    assert served[f"GET /repos/{named} 200"] == 1 and served[f"graphql repository {named}"] == 1
    assert not [line for line in served if "/members" in line or "/billing/seats" in line], served
    assert _rows(pipeline_env, named) == before, "the other repositories' rows and the members and seats stay"
    with duckdb.connect(pipeline_env["WAREHOUSE_PATH"], read_only=True) as conn:
        opened = conn.execute(
            "SELECT title FROM snapshots.issues WHERE snapshot_day = ? AND repository_full_name = ? AND number = ?",
            [today, named, number],
        ).fetchall()
        taken = conn.execute(
            "SELECT * FROM snapshots.issues WHERE repository_full_name = ? ORDER BY issue_id", [named]
        ).fetchall()
    assert opened == [("agent rollout feedback",)], "the issue opened since the day was taken"

    # The same refresh again: the same rows (a refresh is idempotent).
    _run(defs, instance, refresh, "")
    with duckdb.connect(pipeline_env["WAREHOUSE_PATH"], read_only=True) as conn:
        again = conn.execute(
            "SELECT * FROM snapshots.issues WHERE repository_full_name = ? ORDER BY issue_id", [named]
        ).fetchall()
    assert again == taken and _rows(pipeline_env, named) == before


def test_one_burst_of_deliveries_naming_two_repositories_is_one_snapshot_run_and_one_publish(
    emulator, pipeline_env, instance
):
    defs = build_definitions(Settings.from_env())
    spool = Path(pipeline_env["WEBHOOK_SPOOL_DIR"])
    repositories = _repositories(emulator)
    _take_today(defs, instance)
    publishes, versions = _publishes(instance), _lake_versions(pipeline_env)

    with _receiving(emulator, spool):
        _burst(emulator, spool, repositories[:2])
    served_before = _paths(emulator)
    requested = _after_the_burst(defs, instance)
    served = _paths(emulator) - served_before

    assert [r.job_name or "snapshots_job" for r in requested] == ["snapshots_job"], "one run for the whole burst"
    assert _publishes(instance) - publishes == 1
    assert _lake_versions(pipeline_env) - versions == 1
    assert _fetched_repositories(served, repositories) == set(repositories[:2])
    with duckdb.connect(pipeline_env["SERVING_PATH"], read_only=True) as conn:
        (landed,) = conn.execute("SELECT count(*) FROM events.webhook_deliveries").fetchone()
    assert landed == 3, "the burst's deliveries reached the serving database by that one publish"


def test_loads_between_two_ticks_are_one_refresh_of_every_repository_they_named_and_one_publish(
    emulator, pipeline_env, instance
):
    defs = build_definitions(Settings.from_env())
    spool = Path(pipeline_env["WEBHOOK_SPOOL_DIR"])
    repositories = _repositories(emulator)
    _take_today(defs, instance)
    requests, cursor = _tick(snapshot_refresh_sensor, instance, defs)  # the sensor running before the loads
    assert requests == []
    publishes = _publishes(instance)

    with _receiving(emulator, spool):
        spool_cursor = None
        for repo in repositories[1:]:  # two bursts, each loaded by a spool sensor run of its own
            _burst(emulator, spool, [repo])
            (load,), spool_cursor = _tick(webhook_spool_sensor, instance, defs, spool_cursor)
            _run(defs, instance, load, "webhook_events_job")
    served_before = _paths(emulator)
    requests, cursor = _tick(snapshot_refresh_sensor, instance, defs, cursor)
    for request in requests:
        _run(defs, instance, request, "snapshots_job")
    served = _paths(emulator) - served_before

    assert len(requests) == 1, "one run for both loads"
    assert _fetched_repositories(served, repositories) == set(repositories[1:])
    assert _publishes(instance) - publishes == 1
    assert _tick(snapshot_refresh_sensor, instance, defs, cursor)[0] == [], "nothing left for the next tick"


def _issue_titles(pipeline_env, repo: str, number: int) -> list[tuple]:
    with duckdb.connect(pipeline_env["WAREHOUSE_PATH"], read_only=True) as conn:
        return conn.execute(
            "SELECT title FROM snapshots.issues WHERE repository_full_name = ? AND number = ?", [repo, number]
        ).fetchall()


def test_a_refresh_whose_run_failed_is_asked_again_with_the_loads_since_and_the_cursor_waits_for_its_run(
    emulator, pipeline_env, instance, monkeypatch
):
    defs = build_definitions(Settings.from_env())
    spool = Path(pipeline_env["WEBHOOK_SPOOL_DIR"])
    first, second = _repositories(emulator)[:2]
    _take_today(defs, instance)
    publishes = _publishes(instance)
    with _receiving(emulator, spool):
        (first_issue,) = _burst(emulator, spool, [first])
        (load,), spool_cursor = _tick(webhook_spool_sensor, instance, defs)
        _run(defs, instance, load, "webhook_events_job")
        (refresh,), cursor = _tick(snapshot_refresh_sensor, instance, defs)

        # Launched, not finished: the sensor waits for it, asking nothing and keeping its cursor.
        queued = instance.create_run_for_job(
            defs.resolve_job_def("snapshots_job"), run_config=refresh.run_config, tags=refresh.tags
        )
        assert _tick(snapshot_refresh_sensor, instance, defs, cursor) == ([], cursor)
        instance.delete_run(queued.run_id)

        # The refresh's run fails (the service refuses the token): nothing of it lands or publishes.
        with monkeypatch.context() as refused:
            refused.setenv("SERVICE_TOKEN", "a-token-the-service-refuses")
            failing = build_definitions(Settings.from_env()).resolve_job_def("snapshots_job")
            assert not failing.execute_in_process(
                instance=instance,
                partition_key=refresh.partition_key,
                run_config=refresh.run_config,
                tags=refresh.tags,
                raise_on_error=False,
            ).success
        assert _issue_titles(pipeline_env, first, first_issue) == []

        # A later load names another repository before the next tick.
        (second_issue,) = _burst(emulator, spool, [second])
        (load,), _ = _tick(webhook_spool_sensor, instance, defs, spool_cursor)
        _run(defs, instance, load, "webhook_events_job")
    (again,), cursor = _tick(snapshot_refresh_sensor, instance, defs, cursor)
    assert again.run_key != refresh.run_key
    assert again.run_config == refresh.run_config, "loaded since the failed refresh's loads began"
    served_before = _paths(emulator)
    _run(defs, instance, again, "snapshots_job")

    assert _fetched_repositories(_paths(emulator) - served_before, _repositories(emulator)) == {first, second}
    assert _issue_titles(pipeline_env, first, first_issue) == [("agent rollout feedback",)]
    assert _issue_titles(pipeline_env, second, second_issue) == [("agent rollout feedback",)]
    assert _publishes(instance) - publishes == 1
    assert _tick(snapshot_refresh_sensor, instance, defs, cursor)[0] == [], "refreshed: nothing left to ask"
