"""Dagster's UI over a data home where the command line ran, asked what its pages ask.

In a home holding two snapshots an older version took (under calendar-day partitions),
`metrics-etl run` lands two days, the latest report and today's snapshot, `metrics-etl publish`
publishes again; then Dagster's
webserver starts on the workspace (workspace.yaml, on 127.0.0.1, as `make dev` starts it) and
is asked over HTTP the GraphQL queries of the Overview's timeline, of a job's runs page and
header, and of an asset's partition bar: the command line's runs are there as the UI's own are,
and the snapshot assets show only the days a snapshot was taken.
"""

from __future__ import annotations

import itertools
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from emulator import EmulatorConfig, running_emulator
from tests._emulator import environ_for

REPO = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
START_SECONDS = 300  # the webserver loads the definitions in a code server; slow on 2 busy cores
LOCATION, REPOSITORY = "metrics_etl", "__repository__"
JOBS = ("usage_daily_job", "usage_latest_job", "snapshots_job", "serving_publish_job", "billing_job")
_TODAY = datetime.now(UTC).date()
EARLIER_SNAPSHOTS = [_TODAY - timedelta(days=30), _TODAY - timedelta(days=3)]  # taken in an older version

# The Overview's timeline (ui-core runs/useRunsForTimeline.tsx): finished runs, each placed on
# its job's row by its repositoryOrigin; a run without one is left off.
TIMELINE = """
query CompletedRunTimelineQuery($completedFilter: RunsFilter!, $limit: Int!) {
  completed: runsOrError(filter: $completedFilter, limit: $limit) {
    ... on Runs { results { id pipelineName status repositoryOrigin { repositoryName repositoryLocationName } } }
  }
}"""
# A job's Runs tab (ui-core pipelines/PipelineRunsFeedRoot.tsx): the job's runs carrying the
# repository label of the code location; none found is "You have not materialized any assets…".
RUNS_FEED = """
query RunsFeedRootQuery($limit: Int!, $filter: RunsFilter, $view: RunsFeedView!) {
  runsFeedOrError(limit: $limit, filter: $filter, view: $view) {
    ... on RunsFeedConnection { results { id } }
  }
}"""
# A job's header (ui-core nav/JobMetadata.tsx): its last runs and the assets they materialized.
JOB_METADATA = """
query JobMetadataQuery($params: PipelineSelector!, $runsFilter: RunsFilter!) {
  pipelineOrError(params: $params) { ... on Pipeline { name } }
  assetNodes(pipeline: $params) { assetKey { path } assetMaterializations(limit: 1) { runId } }
  pipelineRunsOrError(filter: $runsFilter, limit: 5) {
    ... on PipelineRuns { results { id status assets { key { path } } } }
  }
}"""
# An asset's partition bar and counts (ui-core assets/usePartitionHealthData.tsx).
PARTITION_HEALTH = """
query PartitionHealthQuery($assetKey: AssetKeyInput!) {
  assetNodeOrError(assetKey: $assetKey) {
    ... on AssetNode {
      partitionKeysByDimension { partitionKeys }
      partitionStats { numMaterialized numPartitions numFailed numMaterializing }
    }
  }
}"""


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@dataclass(frozen=True)
class Ui:
    url: str
    cli_runs: dict[str, str]  # run id -> job, every run the command line made
    today: str

    def ask(self, query: str, **variables: Any) -> dict[str, Any]:
        body = json.dumps({"query": query, "variables": variables}).encode()
        request = urllib.request.Request(f"{self.url}/graphql", body, {"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=120) as response:
            answer = json.load(response)
        assert "errors" not in answer, answer
        data: dict[str, Any] = answer["data"]
        return data


def _env(home: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SERVICE_", "WAREHOUSE_", "METRICS_", "DAGSTER_"))}
    return env | {"METRICS_HOME": str(home), "DAGSTER_HOME": str(home / "dagster")} | extra


def _cli(env: dict[str, str], cwd: Path, *args: str) -> str:
    done = subprocess.run(
        [str(BIN / "metrics-etl"), *args], env=env, cwd=cwd, capture_output=True, text=True, timeout=900
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    return done.stdout


def _snapshots_from_before(home: Path, days: list[date]) -> None:
    """What a home kept of its snapshots when their partitions were calendar days: each table
    materialized under the day's key."""
    import dagster as dg

    from pipelines.defs.snapshots.assets import SNAPSHOT_TABLES

    with dg.DagsterInstance.from_config(str(home / "dagster")) as instance:
        for day, table in itertools.product(days, SNAPSHOT_TABLES):
            event = dg.AssetMaterialization(["snapshots", table], partition=day.isoformat())
            instance.report_runless_asset_event(event)


def _cli_runs(home: Path) -> dict[str, str]:
    import dagster as dg

    with dg.DagsterInstance.from_config(str(home / "dagster")) as instance:
        return {run.run_id: run.job_name for run in instance.get_runs()}


def _wait_for_the_code_location(ui: Ui, server: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + START_SECONDS
    while True:
        assert server.poll() is None, f"the webserver ended: {log.read_text()[-3000:]}"
        assert time.monotonic() < deadline, f"not up after {START_SECONDS}s: {log.read_text()[-3000:]}"
        try:
            entries = ui.ask(
                "{ workspaceOrError { ... on Workspace { locationEntries { name loadStatus "
                "locationOrLoadError { __typename ... on PythonError { message } } } } } }"
            )
        except OSError:
            time.sleep(1)
            continue
        (entry,) = entries["workspaceOrError"]["locationEntries"]
        if entry["loadStatus"] == "LOADED":
            assert entry["locationOrLoadError"]["__typename"] == "RepositoryLocation", entry
            assert entry["name"] == LOCATION
            return
        time.sleep(1)


@contextmanager
def webserver(env: dict[str, str], log: Path) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """Dagster's webserver on the workspace, as `make dev` starts it; stopped with its group."""
    port = _free_port()
    with log.open("w") as out:
        server = subprocess.Popen(
            [str(BIN / "dagster-webserver"), "-w", "workspace.yaml", "-h", "127.0.0.1", "-p", str(port)],
            cwd=REPO,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        yield f"http://127.0.0.1:{port}", server
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait()


@pytest.fixture(scope="module")
def ui(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Ui]:
    root = tmp_path_factory.mktemp("dagster-ui")
    home = root / "home"
    today = _TODAY
    first, last = today - timedelta(days=6), today - timedelta(days=5)
    with running_emulator(EmulatorConfig(seed=43, users=8, repos=2, issues_per_repo=2)) as emu:
        env = _env(home, **environ_for(emu), METRICS_START_DAY=first.isoformat())
        _cli(env, root, "init")
        _snapshots_from_before(home, EARLIER_SNAPSHOTS)
        _cli(env, root, "run", "--from", first.isoformat(), "--to", last.isoformat())
        _cli(env, root, "publish")
        cli_runs = _cli_runs(home)
        with webserver(env, root / "webserver.log") as (url, server):
            found = Ui(url=url, cli_runs=cli_runs, today=today.isoformat())
            _wait_for_the_code_location(found, server, root / "webserver.log")
            yield found


@pytest.mark.timeout(START_SECONDS + 900)
def test_the_overview_timeline_places_every_command_line_run_in_the_code_location(ui: Ui) -> None:
    assert sorted(set(ui.cli_runs.values())) == sorted(JOBS)
    since = (datetime.now(UTC) - timedelta(hours=6)).timestamp()
    data = ui.ask(
        TIMELINE, completedFilter={"statuses": ["SUCCESS", "FAILURE", "CANCELED"], "updatedAfter": since}, limit=500
    )
    shown = {run["id"]: run for run in data["completed"]["results"]}
    assert set(ui.cli_runs) <= set(shown), "runs the Overview does not list"
    for run_id in ui.cli_runs:
        assert shown[run_id]["status"] == "SUCCESS"
        assert shown[run_id]["repositoryOrigin"] == {"repositoryName": REPOSITORY, "repositoryLocationName": LOCATION}


@pytest.mark.timeout(START_SECONDS + 900)
@pytest.mark.parametrize("job", JOBS)
def test_a_jobs_page_lists_its_command_line_runs_and_their_materializations(ui: Ui, job: str) -> None:
    label = {"key": ".dagster/repository", "value": f"{REPOSITORY}@{LOCATION}"}
    mine = {run_id for run_id, name in ui.cli_runs.items() if name == job}
    feed = ui.ask(RUNS_FEED, limit=30, view="RUNS", filter={"pipelineName": job, "tags": [label]})
    assert {run["id"] for run in feed["runsFeedOrError"]["results"]} == mine

    selector = {"repositoryLocationName": LOCATION, "repositoryName": REPOSITORY, "pipelineName": job}
    header = ui.ask(JOB_METADATA, params=selector, runsFilter={"pipelineName": job, "tags": [label]})
    runs = header["pipelineRunsOrError"]["results"]
    assert {run["id"] for run in runs} == mine and {run["status"] for run in runs} == {"SUCCESS"}
    # The job's assets show their latest materialization, made by one of those runs.
    latest = {tuple(node["assetKey"]["path"]): node["assetMaterializations"] for node in header["assetNodes"]}
    landed = {key for key, events in latest.items() if events and events[0]["runId"] in mine}
    assert landed, f"no asset of {job} shows a materialization of its runs: {latest}"


@pytest.mark.timeout(START_SECONDS + 900)
def test_the_snapshot_assets_show_only_the_days_taken_none_missing(ui: Ui) -> None:
    from pipelines.defs.snapshots.assets import SNAPSHOT_TABLES

    taken = [day.isoformat() for day in EARLIER_SNAPSHOTS] + [ui.today]
    for table in SNAPSHOT_TABLES:
        node = ui.ask(PARTITION_HEALTH, assetKey={"path": ["snapshots", table]})["assetNodeOrError"]
        (dimension,) = node["partitionKeysByDimension"]
        assert dimension["partitionKeys"] == taken, table
        stats = node["partitionStats"]
        assert stats == {"numMaterialized": 3, "numPartitions": 3, "numFailed": 0, "numMaterializing": 0}, table
