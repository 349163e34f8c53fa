"""Webhooks drive the warehouse: deliveries from the emulator reach the receiver's spool, the
spool sensor loads them through Dagster, and the refresh sensor retakes today's snapshot."""

import time
from datetime import UTC, datetime
from pathlib import Path

import dagster as dg
import duckdb
import pytest

from pipelines.config import Secret, Settings
from pipelines.definitions import build_definitions
from pipelines.defs._automation import Automation
from pipelines.defs.events.automation import build_events_automation
from pipelines.defs.resources import StorageResource
from pipelines.defs.snapshots.days import add_snapshot_day
from pipelines.service import ServiceClient
from pipelines.service.repos import create_issue, create_pull_request
from pipelines.webhooks.app import ReceiverConfig, running_receiver

webhook_spool_sensor, snapshot_refresh_sensor = build_events_automation(Automation())


def _wait_for_deliveries(emu, count: int) -> None:
    deadline = time.monotonic() + 30  # a bound on waiting, not a measured duration
    while time.monotonic() < deadline:
        if len(emu.stats()["deliveries"]) >= count:
            return
        time.sleep(0.05)
    pytest.fail(f"only {len(emu.stats()['deliveries'])} of {count} deliveries arrived")


def test_created_issues_land_as_deliveries_and_refresh_the_snapshot(emulator, pipeline_env, instance):
    creds = emulator.credentials
    defs = build_definitions(Settings.from_env())
    today = datetime.now(UTC).date().isoformat()
    snapshot_job = defs.resolve_job_def("snapshots_job")
    add_snapshot_day(instance, datetime.now(UTC).date())
    assert snapshot_job.execute_in_process(instance=instance, partition_key=today).success

    spool = Path(pipeline_env["WEBHOOK_SPOOL_DIR"])
    config = ReceiverConfig(secret=creds["webhook_secret"].encode(), spool_dir=spool)
    with running_receiver(config=config) as receiver_url:
        emulator.add_hook(
            url=f"{receiver_url}/webhooks", secret=creds["webhook_secret"], events=("issues", "pull_request")
        )
        settings = Settings(base_url=creds["base_url"], token=Secret(creds["token"]), etag_cache=None)
        before = len(emulator.stats()["deliveries"])
        with ServiceClient(config=settings.service_config()) as client:
            repo = client.get_json(path=f"/orgs/{creds['org']}/repos")[0]
            owner, name = repo["full_name"].split("/")
            issue = create_issue(client, owner=owner, name=name, title="agent rollout feedback")
            create_pull_request(client, owner=owner, name=name, title="pin agent", head="topic", base="main")
        _wait_for_deliveries(emulator, before + 2)

    storage = build_definitions(Settings.from_env()).resources["storage"]
    assert isinstance(storage, StorageResource) and storage.spool_path == spool
    with dg.build_sensor_context(instance=instance, resources={"storage": storage}) as context:
        tick = webhook_spool_sensor(context)
    assert len(tick.run_requests) == 1
    with dg.build_sensor_context(instance=instance, cursor=tick.cursor, resources={"storage": storage}) as context:
        assert isinstance(webhook_spool_sensor(context), dg.SkipReason), "an unchanged spool requests nothing"

    assert defs.resolve_job_def("webhook_events_job").execute_in_process(instance=instance).success

    with dg.build_sensor_context(instance=instance, repository_def=defs.get_repository_def()) as context:
        (refresh,) = snapshot_refresh_sensor(context).run_requests
    assert (refresh.job_name, refresh.partition_key) == ("snapshots_job", today)
    assert repo["full_name"] not in repr((refresh.run_config, refresh.tags)), "a name may be a login"
    assert snapshot_job.execute_in_process(
        instance=instance, partition_key=today, run_config=refresh.run_config
    ).success

    with duckdb.connect(pipeline_env["SERVING_PATH"], read_only=True) as conn:
        events = conn.execute(
            "SELECT event, action, repository_full_name FROM events.webhook_deliveries ORDER BY event"
        ).fetchall()
        refreshed = conn.execute(
            "SELECT title FROM snapshots.issues WHERE snapshot_day = ? AND repository_full_name = ? AND number = ?",
            [today, repo["full_name"], issue["number"]],
        ).fetchall()
    assert events == [("issues", "opened", repo["full_name"]), ("pull_request", "opened", repo["full_name"])]
    assert refreshed == [("agent rollout feedback",)]
