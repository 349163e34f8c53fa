import subprocess
import sys
from pathlib import Path

import dagster as dg

from pipelines.definitions import build_definitions

ROOT = Path(__file__).resolve().parents[3]


def test_dagster_validates_the_workspace():
    done = subprocess.run(
        [str(Path(sys.executable).parent / "dagster"), "definitions", "validate", "-w", "workspace.yaml"],
        cwd=ROOT, capture_output=True, text=True, timeout=240,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "passed validation" in done.stderr + done.stdout


def test_definitions_list_every_asset_check_job_schedule_and_sensor(pipeline_env):
    defs = build_definitions()
    graph = defs.resolve_asset_graph()
    keys = {key.to_user_string() for key in graph.get_all_asset_keys()}
    assert keys == {
        "raw/report_files", "core/daily_totals", "core/user_daily_totals", "core/breakdowns",
        "core/agent_activity", "core/agent_days", "core/dim_agent", "core/agent_names", "usage/latest_28_day_report",
        "snapshots/repositories", "snapshots/repository_stats", "snapshots/issues", "snapshots/org_members",
        "events/webhook_deliveries", "serving/warehouse_copy",
    }
    checks = {f"{key.asset_key.to_user_string()}:{key.name}" for key in graph.asset_check_keys}
    assert {
        "raw/report_files:quarantine_is_empty", "core/daily_totals:grain_is_unique",
        "core/agent_activity:agent_rules_hold", "core/dim_agent:covers_every_agent",
        "core/daily_totals:days_without_agent_array", "core/daily_totals:fresh_against_available_day",
        "snapshots/issues:issues_belong_to_known_repositories", "events/webhook_deliveries:deliveries_name_event_and_repository",
        "core/breakdowns:whole_history_grain_is_unique", "raw/report_files:whole_history_quarantine_is_empty",
    } <= checks
    tables = {key.to_user_string() for key in graph.get_all_asset_keys()} - {"serving/warehouse_copy", "usage/latest_28_day_report"}
    assert tables <= {key.asset_key.to_user_string() for key in graph.asset_check_keys}, "every table has a check"
    repo = defs.get_repository_def()
    assert {job.name for job in repo.get_all_jobs()} >= {"usage_daily_job", "usage_latest_job", "snapshots_job", "webhook_events_job", "warehouse_audit_job"}
    assert {s.name for s in repo.schedule_defs} == {"usage_daily_schedule", "usage_latest_schedule", "snapshots_daily_schedule", "warehouse_audit_schedule"}
    assert {s.name for s in repo.sensor_defs} == {"report_availability_sensor", "webhook_spool_sensor", "snapshot_refresh_sensor"}


def test_secrets_are_configured_as_environment_variables_not_values(pipeline_env):
    service = build_definitions().resources["service"]
    raw = service._get_non_default_public_field_values()  # what Dagster stores and shows
    assert isinstance(raw["token"], dg.EnvVar) and raw["token"] == "SERVICE_TOKEN"
