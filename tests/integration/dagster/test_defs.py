"""The whole Dagster graph, pinned: every asset, check, job, schedule and sensor by name.

A change to any of them is a change users see in Dagster (and in run history); it has to show
up here as a deliberate edit of these literal sets.
"""

import subprocess
import sys
from datetime import date
from pathlib import Path

import dagster as dg
import pytest

from pipelines.config import Secret, Settings
from pipelines.definitions import build_definitions, defs
from pipelines.service import ConfigError

ROOT = Path(__file__).resolve().parents[3]

ASSETS = {
    "raw/report_files", "raw/report_fetches", "raw/field_drift", "core/daily_totals", "core/user_daily_totals",
    "core/breakdowns", "core/agent_activity", "core/cli_customizations",
    "core/adoption_phases", "core/feature_engagement", "core/comment_types",
    "core/agent_days", "core/dim_agent", "core/agent_names", "usage/latest_28_day_report",
    "core/user_team_days", "core/team_days", "core/dim_team",
    "core/repository_days", "core/repository_review_times", "core/repository_comment_types",
    "snapshots/repositories", "snapshots/repository_stats", "snapshots/issues", "snapshots/org_members",
    "snapshots/seats", "snapshots/enterprise_seats",
    "events/webhook_deliveries", "serving/warehouse_copy",
}
# (asset, check, blocking): blocking checks hold back the serving copy downstream of them.
CHECKS = {
    ("core/agent_activity", "agent_rules_hold", True),
    ("core/agent_activity", "counts_are_non_negative", True),
    ("core/agent_activity", "grain_is_unique", True),
    ("core/agent_days", "agrees_with_agent_activity", True),
    ("core/agent_names", "keeps_every_label", True),
    ("core/breakdowns", "counts_are_non_negative", True),
    ("core/breakdowns", "grain_is_unique", True),
    ("core/cli_customizations", "counts_are_non_negative", True),
    ("core/adoption_phases", "counts_are_non_negative", True),
    ("core/adoption_phases", "grain_is_unique", True),
    ("core/feature_engagement", "counts_are_non_negative", True),
    ("core/feature_engagement", "grain_is_unique", True),
    ("core/comment_types", "counts_are_non_negative", True),
    ("core/comment_types", "grain_is_unique", True),
    ("core/cli_customizations", "grain_is_unique", True),
    ("core/daily_totals", "counts_are_non_negative", True),
    ("core/daily_totals", "days_without_agent_array", False),
    ("core/daily_totals", "reconciliation_holds", False),
    ("raw/report_fetches", "provisional_days_fetched_again", False),
    ("raw/field_drift", "fields_are_declared", False),
    ("core/daily_totals", "fresh_against_available_day", False),
    ("core/daily_totals", "freshness_check", False),  # Dagster's own: yesterday landed by 09:00 UTC
    ("core/daily_totals", "grain_is_unique", True),
    ("core/dim_agent", "covers_every_agent", True),
    ("core/user_daily_totals", "counts_are_non_negative", True),
    ("core/user_daily_totals", "grain_is_unique", True),
    ("core/user_team_days", "grain_is_unique", True),
    ("core/user_team_days", "members_are_users_of_the_day", False),
    ("core/dim_team", "covers_every_team", True),
    ("core/repository_days", "grain_is_unique", True),
    ("core/repository_days", "counts_are_non_negative", True),
    ("core/repository_days", "pull_requests_fit_the_aggregate", False),
    ("core/repository_review_times", "grain_is_unique", True),
    ("core/repository_review_times", "counts_are_non_negative", True),
    ("core/repository_comment_types", "grain_is_unique", True),
    ("core/repository_comment_types", "counts_are_non_negative", True),
    ("events/webhook_deliveries", "deliveries_name_event_and_repository", True),
    ("raw/report_files", "quarantine_is_empty", True),
    ("snapshots/issues", "issues_belong_to_known_repositories", True),
    ("snapshots/org_members", "members_visible", True),
    ("snapshots/repositories", "no_skipped_repositories", False),
    ("snapshots/seats", "seat_snapshot_complete", True),
    ("snapshots/seats", "seats_visible", False),
    ("snapshots/seats", "seats_landed", False),
    ("snapshots/seats", "seat_fields_are_declared", False),
    ("snapshots/enterprise_seats", "enterprise_seat_snapshot_complete", True),
    ("snapshots/enterprise_seats", "enterprise_seats_visible", False),
    ("snapshots/enterprise_seats", "enterprise_seats_landed", False),
    ("snapshots/repository_stats", "counts_are_consistent", True),
    ("snapshots/repository_stats", "every_repository_has_stats", True),
    # The weekly audit: the same checks over the whole history, never blocking.
    ("core/agent_activity", "whole_history_agent_rules_hold", False),
    ("core/agent_activity", "whole_history_counts_are_non_negative", False),
    ("core/agent_activity", "whole_history_grain_is_unique", False),
    ("core/agent_days", "whole_history_agrees_with_agent_activity", False),
    ("core/agent_names", "whole_history_keeps_every_label", False),
    ("core/breakdowns", "whole_history_counts_are_non_negative", False),
    ("core/breakdowns", "whole_history_grain_is_unique", False),
    ("core/cli_customizations", "whole_history_counts_are_non_negative", False),
    ("core/adoption_phases", "whole_history_counts_are_non_negative", False),
    ("core/adoption_phases", "whole_history_grain_is_unique", False),
    ("core/feature_engagement", "whole_history_counts_are_non_negative", False),
    ("core/feature_engagement", "whole_history_grain_is_unique", False),
    ("core/comment_types", "whole_history_counts_are_non_negative", False),
    ("core/comment_types", "whole_history_grain_is_unique", False),
    ("core/cli_customizations", "whole_history_grain_is_unique", False),
    ("core/daily_totals", "whole_history_counts_are_non_negative", False),
    ("core/daily_totals", "whole_history_days_without_agent_array", False),
    ("core/daily_totals", "whole_history_reconciliation_holds", False),
    ("core/daily_totals", "whole_history_grain_is_unique", False),
    ("core/dim_agent", "whole_history_covers_every_agent", False),
    ("core/user_daily_totals", "whole_history_counts_are_non_negative", False),
    ("core/user_daily_totals", "whole_history_grain_is_unique", False),
    ("core/user_team_days", "whole_history_grain_is_unique", False),
    ("core/user_team_days", "whole_history_members_are_users_of_the_day", False),
    ("core/dim_team", "whole_history_covers_every_team", False),
    ("core/repository_days", "whole_history_grain_is_unique", False),
    ("core/repository_days", "whole_history_counts_are_non_negative", False),
    ("core/repository_days", "whole_history_pull_requests_fit_the_aggregate", False),
    ("core/repository_review_times", "whole_history_grain_is_unique", False),
    ("core/repository_review_times", "whole_history_counts_are_non_negative", False),
    ("core/repository_comment_types", "whole_history_grain_is_unique", False),
    ("core/repository_comment_types", "whole_history_counts_are_non_negative", False),
    ("raw/report_files", "whole_history_quarantine_is_empty", False),
}
JOBS = {
    "usage_daily_job", "usage_latest_job", "snapshots_job", "webhook_events_job", "warehouse_audit_job",
    "serving_publish_job",
}
SCHEDULES = {
    ("usage_daily_schedule", "0 6 * * *", "usage_daily_job"),
    ("usage_latest_schedule", "30 6 * * *", "usage_latest_job"),
    ("snapshots_daily_schedule", "0 5 * * *", "snapshots_job"),
    ("warehouse_audit_schedule", "0 3 * * 0", "warehouse_audit_job"),
}
SENSORS = {
    ("report_availability_sensor", ("usage_daily_job",)),
    ("webhook_spool_sensor", ("webhook_events_job",)),
    ("snapshot_refresh_sensor", ("snapshots_job",)),
    ("freshness_checks_sensor", ()),  # requests runs of the freshness check alone
    ("run_failure_alert_sensor", ()),  # alerts: they send messages and request no run
    ("warning_alert_sensor", ()),
}


def test_the_graph_is_every_asset_check_job_schedule_and_sensor_named_here():
    definitions = build_definitions(Settings(), start_day=date(2026, 1, 1))
    graph = definitions.resolve_asset_graph()
    assert {key.to_user_string() for key in graph.get_all_asset_keys()} == ASSETS
    checks = {(key.asset_key.to_user_string(), key.name, graph.get(key).blocking) for key in graph.asset_check_keys}
    assert checks == CHECKS
    repo = definitions.get_repository_def()
    # Dagster adds its own implicit job for materializing any selection.
    assert {job.name for job in repo.get_all_jobs()} - {"__ASSET_JOB"} == JOBS
    assert {(s.name, s.cron_schedule, s.job_name) for s in repo.schedule_defs} == SCHEDULES
    assert {(s.name, tuple(sorted(t.job_name for t in s.targets))) for s in repo.sensor_defs} == SENSORS


def test_every_schedule_and_sensor_says_what_it_does_and_starts_off_unless_automation_is_on():
    off = build_definitions(Settings(), start_day=date(2026, 1, 1)).get_repository_def()
    on = build_definitions(Settings(automation=True), start_day=date(2026, 1, 1)).get_repository_def()
    for definition in (*off.schedule_defs, *off.sensor_defs):
        assert definition.description and len(definition.description) > 20, definition.name
        assert definition.default_status.value == "STOPPED", definition.name
    for definition in (*on.schedule_defs, *on.sensor_defs):
        assert definition.default_status.value == "RUNNING", definition.name


def test_the_lazy_entry_point_builds_the_same_graph_from_the_environment(pipeline_env):
    graph = defs().resolve_asset_graph()
    assert {key.to_user_string() for key in graph.get_all_asset_keys()} == ASSETS
    assert len(graph.asset_check_keys) == len(CHECKS)


def test_dagster_validates_the_workspace():
    done = subprocess.run(
        [str(Path(sys.executable).parent / "dagster"), "definitions", "validate", "-w", "workspace.yaml"],
        cwd=ROOT, capture_output=True, text=True, timeout=240,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "passed validation" in done.stderr + done.stdout


def test_secrets_are_configured_as_environment_variables_not_values(pipeline_env):
    service = build_definitions(Settings.from_env()).resources["service"]
    raw = service._get_non_default_public_field_values()  # what Dagster stores and shows
    assert isinstance(raw["token"], dg.EnvVar) and raw["token"] == "SERVICE_TOKEN"
    assert raw["base_url"] == pipeline_env["SERVICE_BASE_URL"], "a setting that is no secret is a plain value"


def test_a_token_read_from_its_file_is_left_to_the_file(tmp_path, monkeypatch):
    monkeypatch.delenv("SERVICE_TOKEN", raising=False)
    token_file = tmp_path / "token"
    token_file.write_text("from-the-file\n")
    settings = Settings(token=Secret("from-the-file"), token_file=token_file)
    raw = build_definitions(settings).resources["service"]._get_non_default_public_field_values()
    assert "token" not in raw and raw["token_file"] == str(token_file)


def test_a_secret_missing_from_the_environment_is_a_one_line_config_error(tmp_path, monkeypatch):
    monkeypatch.delenv("SERVICE_TOKEN", raising=False)
    settings = Settings(token=Secret("only-in-code"), token_file=tmp_path / "none")
    with pytest.raises(ConfigError, match="SERVICE_TOKEN must be set in the process environment") as caught:
        build_definitions(settings)
    assert "only-in-code" not in str(caught.value) and "\n" not in str(caught.value)
