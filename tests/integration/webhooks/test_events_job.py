"""`webhook_events_job` through Dagster: one bad delivery never fails the loads after it."""

from __future__ import annotations

import json
from pathlib import Path

import dagster as dg
import duckdb
import pytest

from pipelines.config import Settings
from pipelines.definitions import build_definitions
from pipelines.warehouse.migrate import migrate
from pipelines.webhooks.segments import SpoolRecord, encode_record


def _delivery(delivery_id: str, payload: dict) -> bytes:
    return encode_record(
        SpoolRecord(
            delivery_id=delivery_id,
            event="issues",
            received_at="2026-11-22T10:00:00+00:00",
            payload=json.dumps(payload).encode(),
        )
    )


@pytest.fixture
def events_env(tmp_path, monkeypatch) -> dict[str, Path]:
    paths = {
        "WAREHOUSE_PATH": tmp_path / "warehouse.duckdb",
        "SERVING_PATH": tmp_path / "serving.duckdb",
        "LAKE_PATH": tmp_path / "lake",
        "WEBHOOK_SPOOL_DIR": tmp_path / "spool",
        "RAW_DIR": tmp_path / "raw",
    }
    for name, value in paths.items():
        monkeypatch.setenv(name, str(value))
    return paths


def test_an_issues_delivery_without_repository_is_quarantined_and_the_next_run_passes(events_env):
    # A row an earlier loader let in, before repository-less deliveries were quarantined: the
    # check must judge what each load writes, not fail every run for this row.
    with duckdb.connect(str(events_env["WAREHOUSE_PATH"])) as conn:
        migrate(conn)
        conn.execute(
            "INSERT INTO events.webhook_deliveries VALUES ('old-bare', 'issues', 'opened', NULL, now(), '{}', now())"
        )
    spool = events_env["WEBHOOK_SPOOL_DIR"]
    spool.mkdir()
    (spool / "0001.seg").write_bytes(
        _delivery("bare", {"action": "opened", "issue": {"number": 9}})
        + _delivery("good", {"action": "opened", "repository": {"full_name": "acme/widgets"}})
    )
    job = build_definitions(Settings.from_env()).resolve_job_def("webhook_events_job")

    with dg.instance_for_test() as instance:
        first = job.execute_in_process(instance=instance)
        second = job.execute_in_process(instance=instance)  # loads nothing

    for run in (first, second):
        assert run.success
        (check,) = [
            e.asset_check_evaluation_data
            for e in run.all_events
            if e.event_type_value == "ASSET_CHECK_EVALUATION"
            and e.asset_check_evaluation_data.check_name == "deliveries_name_event_and_repository"
        ]
        assert check.passed
    with duckdb.connect(str(events_env["WAREHOUSE_PATH"]), read_only=True) as conn:
        assert conn.execute("SELECT delivery_id, reason FROM events.webhook_quarantine").fetchall() == [
            ("bare", "issues delivery has no repository.full_name")
        ]
        loaded = conn.execute("SELECT delivery_id FROM events.webhook_deliveries ORDER BY 1").fetchall()
    assert loaded == [("good",), ("old-bare",)]
