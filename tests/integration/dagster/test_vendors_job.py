"""vendors_job over loopback against the emulator: it lands both vendors' days and publishes
them; a vendor whose key is unset is skipped in one line, never an error; a key the vendor
refuses is one line naming the vendor, the cause and what to do, and the run (and the service's
data) lands as ever."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import dagster as dg
import duckdb
import pytest

from pipelines.config import Settings
from pipelines.definitions import build_definitions
from pipelines.runs import RunPlan, _notes, run_plan


def _run(instance: dg.DagsterInstance, days: int = 2) -> dg.ExecuteInProcessResult:
    today = date.today()
    tags = {
        "dagster/asset_partition_range_start": (today - timedelta(days=days)).isoformat(),
        "dagster/asset_partition_range_end": today.isoformat(),
    }
    job = build_definitions(Settings.from_env()).resolve_job_def("vendors_job")
    return job.execute_in_process(instance=instance, tags=tags)


def _count(path: str, table: str) -> int:
    with duckdb.connect(path, read_only=True) as conn:
        return int(conn.execute(f"SELECT count(*) FROM {table}").fetchall()[0][0])


def _vendors(emulator, monkeypatch: pytest.MonkeyPatch, **wrong: str) -> None:
    creds = emulator.credentials
    for name, key in (
        ("ANTHROPIC_BASE_URL", "anthropic_base_url"),
        ("ANTHROPIC_ADMIN_KEY", "anthropic_admin_key"),
        ("CURSOR_BASE_URL", "cursor_base_url"),
        ("CURSOR_API_KEY", "cursor_api_key"),
    ):
        monkeypatch.setenv(name, wrong.get(name, creds[key]))


def test_vendors_job_lands_both_vendors_and_publishes_them(pipeline_env, instance, emulator, monkeypatch) -> None:
    _vendors(emulator, monkeypatch)
    result = _run(instance)
    assert result.success
    assert [line for line in _notes(result) if "vendor" in line.lower() or "skipped" in line] == []
    for table in ("vendors.claude_code_days", "vendors.cursor_days", "vendors.cursor_members"):
        assert _count(pipeline_env["SERVING_PATH"], table) > 0, table
    fetches = instance.get_latest_materialization_event(dg.AssetKey(["vendors", "fetches"]))
    assert fetches is not None
    statuses = fetches.asset_materialization.metadata["vendors"].value  # type: ignore[union-attr]
    assert {name: s["status"] for name, s in statuses.items()} == {"claude_code": "ok", "cursor": "ok"}


def test_a_vendor_whose_key_is_unset_is_skipped_in_one_line(pipeline_env, instance, emulator, monkeypatch) -> None:
    _vendors(emulator, monkeypatch)
    monkeypatch.delenv("CURSOR_API_KEY")
    result = _run(instance)
    assert result.success
    assert "Cursor (Cursor Admin API): skipped (CURSOR_API_KEY is not set)" in _notes(result)
    assert _count(pipeline_env["WAREHOUSE_PATH"], "vendors.cursor_days") == 0
    assert _count(pipeline_env["WAREHOUSE_PATH"], "vendors.claude_code_days") > 0


def test_a_refused_key_is_one_line_and_the_service_s_data_lands(
    pipeline_env, emulator, monkeypatch, tmp_path: Path
) -> None:
    _vendors(emulator, monkeypatch, ANTHROPIC_ADMIN_KEY="sk-ant-admin01-not-the-key")
    monkeypatch.setenv("METRICS_HOME", str(tmp_path / "home"))
    settings = Settings.from_env()
    yesterday = date.today() - timedelta(days=1)
    plan = RunPlan(first_day=yesterday, last_day=yesterday, latest_28_day=False, snapshots=False, billing=False)
    out: list[str] = []

    class Out:
        def write(self, text: str) -> None:
            out.append(text)

        def flush(self) -> None:
            pass

    run_plan(plan, settings=settings, start_day=settings.start_day(today=date.today()), out=Out())  # type: ignore[arg-type]
    lines = "".join(out).splitlines()
    refused = [line.strip() for line in lines if line.strip().startswith("Claude Code")]
    assert refused == [
        "Claude Code (Anthropic Admin API): the key in ANTHROPIC_ADMIN_KEY was refused (401 invalid x-api-key): "
        "set it to an Admin API key (sk-ant-admin...) of the organization, made by an admin in the Claude Console"
    ]
    assert "sk-ant-admin01-not-the-key" not in "".join(out)
    assert _count(pipeline_env["WAREHOUSE_PATH"], "core.daily_totals") > 0  # the service's day landed
    assert _count(pipeline_env["WAREHOUSE_PATH"], "vendors.cursor_days") > 0  # and the other vendor's
    assert _count(pipeline_env["WAREHOUSE_PATH"], "vendors.claude_code_days") == 0


def test_the_daily_schedule_asks_today_and_the_trailing_days_in_one_run() -> None:
    defs = build_definitions(Settings(trailing_days=3))
    schedule = defs.resolve_schedule_def("vendors_daily_schedule")
    context = dg.build_schedule_context(scheduled_execution_time=datetime(2026, 11, 28, 7, 30, tzinfo=UTC))
    (request,) = schedule.evaluate_tick(context).run_requests or []
    assert request.tags["dagster/asset_partition_range_start"] == "2026-11-25"
    assert request.tags["dagster/asset_partition_range_end"] == "2026-11-28"
