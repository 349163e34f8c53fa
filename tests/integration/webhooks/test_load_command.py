"""`metrics-etl webhooks load` in-process over a spool the real receiver wrote: through Dagster,
each delivery once, the serving database republished, the run kept in DAGSTER_HOME."""

from __future__ import annotations

import json
import os
from pathlib import Path

import dagster as dg
import duckdb
import httpx
import pytest
from click.testing import CliRunner, Result

from pipelines.cli import cli
from pipelines.webhooks import load
from pipelines.webhooks.app import ReceiverConfig, running_receiver
from pipelines.webhooks.segments import SpoolRecord, encode_record

from .conftest import SECRET, deliver

ISSUE = {"action": "opened", "issue": {"number": 7}, "repository": {"full_name": "acme/widgets"}}


@pytest.fixture
def place(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every file of the pipeline under `tmp_path`, as a user's environment names them; no service set."""
    monkeypatch.chdir(tmp_path)  # no .env from the checkout
    for name in list(os.environ):
        if name.startswith(("SERVICE_", "WAREHOUSE_", "SERVING_", "METRICS_", "WEBHOOK_", "LAKE_", "RAW_")):
            monkeypatch.delenv(name)
    home = tmp_path / "dagster"
    home.mkdir()
    (home / "dagster.yaml").write_text("telemetry:\n  enabled: false\n")
    for name, value in {
        "WAREHOUSE_PATH": tmp_path / "warehouse.duckdb",
        "SERVING_PATH": tmp_path / "serving.duckdb",
        "LAKE_PATH": tmp_path / "lake",
        "RAW_DIR": tmp_path / "raw",
        "WEBHOOK_SPOOL_DIR": tmp_path / "spool",
        "DAGSTER_HOME": home,
    }.items():
        monkeypatch.setenv(name, str(value))
    return tmp_path


def _load() -> Result:
    return CliRunner().invoke(cli, ["webhooks", "load"])


def _delivery_ids(database: Path) -> list[str]:
    with duckdb.connect(str(database), read_only=True) as conn:
        rows = conn.execute("SELECT delivery_id FROM events.webhook_deliveries ORDER BY 1").fetchall()
    return [row[0] for row in rows]


def _runs() -> list[dg.DagsterRun]:
    with dg.DagsterInstance.get() as instance:
        return list(instance.get_runs(filters=dg.RunsFilter(job_name="webhook_events_job")))


def test_load_lands_what_the_receiver_spooled_once_and_records_the_run(place):
    config = ReceiverConfig(secret=SECRET, spool_dir=place / "spool")
    with running_receiver(config=config) as url, httpx.Client(base_url=url) as client:
        for delivery_id in ("d-1", "d-2", "d-2", "d-3"):
            assert deliver(client, ISSUE, delivery_id=delivery_id).status_code == 200
        first = _load()
        # The receiver still writes its segment, so the spool is not pruned: the loader's offsets alone
        # keep the second load from landing anything again.
        second = _load()

    assert first.exit_code == 0, first.output
    assert first.stdout.splitlines() == [
        f"webhook deliveries from {(place / 'spool').resolve()}",
        first.stdout.splitlines()[1],
        "loaded 3 deliveries into events.webhook_deliveries (0 redeliveries skipped)",
        f"serving database for BI tools: {(place / 'serving.duckdb').resolve()}",
    ]
    assert first.stdout.splitlines()[1].startswith("  webhook_events_job … ok (")
    assert second.exit_code == 0, second.output
    assert "nothing new in the spool: every delivery in it was loaded before" in second.stdout
    assert _delivery_ids(place / "warehouse.duckdb") == ["d-1", "d-2", "d-3"]
    assert _delivery_ids(place / "serving.duckdb") == ["d-1", "d-2", "d-3"]
    assert [run.status for run in _runs()] == [dg.DagsterRunStatus.SUCCESS] * 2


def test_an_empty_spool_is_not_an_error_and_runs_nothing(place):
    (place / "spool").mkdir()
    done = _load()
    assert done.exit_code == 0, done.output
    assert done.stdout == f"spool empty: nothing to load ({(place / 'spool').resolve()})\n"
    assert not (place / "warehouse.duckdb").exists()
    assert _runs() == []


def test_a_missing_spool_directory_is_one_line_with_exit_1(place):
    done = _load()
    assert done.exit_code == 1
    assert done.stderr.splitlines() == [
        f"metrics-etl webhooks load: WEBHOOK_SPOOL_DIR {place / 'spool'} does not exist: "
        "point it at the spool the receiver (metrics-etl webhooks serve) writes deliveries to"
    ]


def test_a_damaged_segment_fails_the_load_in_one_line_naming_it(place):
    spool = place / "spool"
    spool.mkdir()
    record = encode_record(
        SpoolRecord(
            delivery_id="d-1",
            event="issues",
            received_at="2026-11-22T10:00:00+00:00",
            payload=b'{"repository": {"full_name": "acme/widgets"}}',
        )
    )
    damaged = bytearray(record)
    damaged[-3] ^= 0xFF  # a checksum mismatch before the end of the segment is damage, not a torn tail
    (spool / "0001.seg").write_bytes(bytes(damaged) + record)
    done = _load()
    assert done.exit_code == 1
    (line,) = done.stderr.splitlines()
    assert line.startswith("metrics-etl webhooks load: webhook_events_job: step ")
    assert "SpoolCorrupt" in line and "0001.seg at byte 0" in line and "Traceback" not in done.output
    assert [run.status for run in _runs()] == [dg.DagsterRunStatus.FAILURE]


def test_out_of_memory_is_one_line_with_advice_for_a_load_and_the_next_load_lands_everything(place, monkeypatch):
    spool = place / "spool"
    spool.mkdir()
    payload = json.dumps(ISSUE | {"body": "x" * 50_000}).encode()
    (spool / "0001.seg").write_bytes(
        b"".join(
            encode_record(
                SpoolRecord(
                    delivery_id=f"d-{n}", event="issues", received_at="2026-11-22T10:00:00+00:00", payload=payload
                )
            )
            for n in range(20)
        )
    )
    # The loader's bound made too small for even one delivery: DuckDB really runs out of memory.
    bound = load.LOAD_MEMORY_LIMIT
    monkeypatch.setattr(load, "LOAD_MEMORY_LIMIT", "4MB")
    done = _load()
    assert done.exit_code == 1
    (line,) = done.stderr.splitlines()
    assert line.startswith(
        "metrics-etl webhooks load: webhook_events_job: step events__webhook_deliveries: DuckDB ran out of memory "
        "loading webhook deliveries: free memory (a load takes up to 4 MB for DuckDB, docs/webhooks.md), then run "
        "again; deliveries not loaded yet stay in the spool (OutOfMemoryException: Out of Memory Error: "
    )
    assert "--from/--to" not in line and "fewer days" not in line
    monkeypatch.setattr(load, "LOAD_MEMORY_LIMIT", bound)
    again = _load()
    assert again.exit_code == 0, again.output
    assert "loaded 20 deliveries into events.webhook_deliveries (0 redeliveries skipped)" in again.stdout
    assert _delivery_ids(place / "warehouse.duckdb") == sorted(f"d-{n}" for n in range(20))
