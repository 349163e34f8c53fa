"""The whole Dagster graph, pinned: every asset, check, job, schedule and sensor by name.

A change to any of them is a change users see in Dagster (and in run history). The assets of
tables and their grain and sign checks follow from the catalog (pipelines/warehouse/catalog.py):
a table declared there is pinned here without an edit. What is policy, not a list of tables (the
assets that are no table, the other checks, jobs, schedules and sensors), is written out below
and changes only by a deliberate edit.
"""

import json
import subprocess
import sys
from datetime import date
from pathlib import Path

import dagster as dg
import pytest

from pipelines.config import Secret, Settings
from pipelines.definitions import build_definitions, defs
from pipelines.defs.audit.checks import AUDIT_PREFIX
from pipelines.service import ConfigError
from pipelines.warehouse.catalog import TABLES

ROOT = Path(__file__).resolve().parents[3]

# Every table the catalog shows as an asset, by the key users' run history is filed under.
TABLE_ASSETS = {f"{t.schema}/{t.table}": t for t in TABLES if t.asset is not None}
# The assets that are no table: the 28-day report lands into the usage tables (so the publish
# follows it), and the publish itself.
LANDS_INTO_TABLES = "usage/latest_28_day_report"
PUBLISH = "serving/warehouse_copy"
# Each report table with a label has its grain checked in each report's transaction (blocking), and
# its sign when it has counters, and again by the weekly audit over the whole history (never blocking).
CATALOG_CHECKS = {
    check
    for key, t in TABLE_ASSETS.items()
    for name, applies in (("grain_is_unique", t.label), ("counts_are_non_negative", t.counters))
    if applies
    for check in ((key, name, True), (key, AUDIT_PREFIX + name, False))
}
# The other checks: (asset, check, blocking, repeated by the weekly audit). Blocking checks hold
# back the serving copy downstream of them.
POLICY_CHECKS = {
    ("core/agent_activity", "agent_rules_hold", True, True),
    ("core/agent_days", "agrees_with_agent_activity", True, True),
    ("core/agent_names", "keeps_every_label", True, True),
    ("core/dim_agent", "covers_every_agent", True, True),
    ("core/daily_totals", "days_without_agent_array", False, True),
    ("core/daily_totals", "reconciliation_holds", False, True),
    ("core/daily_totals", "fresh_against_available_day", False, False),
    ("core/daily_totals", "freshness_check", False, False),  # Dagster's own: yesterday landed by 09:00 UTC
    ("raw/report_files", "quarantine_is_empty", True, True),
    ("raw/report_fetches", "provisional_days_fetched_again", False, False),
    ("raw/field_drift", "fields_are_declared", False, False),
    ("core/user_team_days", "members_are_users_of_the_day", False, True),
    ("core/dim_team", "covers_every_team", True, True),
    ("core/repository_days", "pull_requests_fit_the_aggregate", False, True),
    ("events/webhook_deliveries", "deliveries_name_event_and_repository", True, False),
    ("snapshots/issues", "issues_belong_to_known_repositories", True, False),
    ("snapshots/org_members", "members_visible", True, False),
    ("snapshots/repositories", "no_skipped_repositories", False, False),
    ("snapshots/seats", "seat_snapshot_complete", True, False),
    ("snapshots/seats", "seats_visible", False, False),
    ("snapshots/seats", "seats_landed", False, False),
    ("snapshots/seats", "seat_fields_are_declared", False, False),
    ("snapshots/enterprise_seats", "enterprise_seat_snapshot_complete", True, False),
    ("snapshots/enterprise_seats", "enterprise_seats_visible", False, False),
    ("snapshots/enterprise_seats", "enterprise_seats_landed", False, False),
    ("snapshots/repository_stats", "counts_are_consistent", True, False),
    ("snapshots/repository_stats", "every_repository_has_stats", True, False),
    ("serving/warehouse_copy", "budgets_within_their_amounts", False, False),
}
CHECKS = CATALOG_CHECKS | {
    check
    for asset, name, blocking, audited in POLICY_CHECKS
    for check in ((asset, name, blocking), *([(asset, AUDIT_PREFIX + name, False)] if audited else []))
}
JOBS = {
    "usage_daily_job",
    "usage_latest_job",
    "snapshots_job",
    "webhook_events_job",
    "warehouse_audit_job",
    "serving_publish_job",
    "billing_job",
    "vendors_job",
}
SCHEDULES = {
    ("usage_daily_schedule", "0 6 * * *", "usage_daily_job"),
    ("usage_latest_schedule", "30 6 * * *", "usage_latest_job"),
    ("snapshots_daily_schedule", "0 5 * * *", "snapshots_job"),
    ("warehouse_audit_schedule", "0 3 * * 0", "warehouse_audit_job"),
    ("billing_daily_schedule", "0 7 * * *", "billing_job"),
    ("vendors_daily_schedule", "30 7 * * *", "vendors_job"),
}
SENSORS = {
    ("report_availability_sensor", ("usage_daily_job",)),
    ("webhook_spool_sensor", ("webhook_events_job",)),
    ("snapshot_refresh_sensor", ("serving_publish_job", "snapshots_job")),
    ("freshness_checks_sensor", ()),  # requests runs of the freshness check alone
    ("run_failure_alert_sensor", ()),  # alerts: they send messages and request no run
    ("warning_alert_sensor", ()),
}


def _graph():
    return build_definitions(Settings(), start_day=date(2026, 1, 1)).resolve_asset_graph()


def test_every_asset_is_a_catalog_table_or_one_of_the_assets_that_are_no_table():
    keys = {key.to_user_string() for key in _graph().get_all_asset_keys()}
    assert keys == {*TABLE_ASSETS, LANDS_INTO_TABLES, PUBLISH}


def test_every_catalog_table_with_an_asset_is_materialized_in_its_group_upstream_of_the_publish():
    graph = _graph()
    for key, t in TABLE_ASSETS.items():
        node = graph.get(dg.AssetKey.from_user_string(key))
        # A key the publish names but no asset makes is an external stub: nothing would write it.
        assert node.is_materializable and node.group_name == t.asset, key
    upstream = {key.to_user_string() for key in graph.get(dg.AssetKey.from_user_string(PUBLISH)).parent_keys}
    assert upstream == {*TABLE_ASSETS, LANDS_INTO_TABLES}


# The catalog given one table more in each concern whose assets are its tables, then the
# Definitions built from it in a fresh interpreter (the defs read the catalog on import).
_GROW_THE_CATALOG = """
import json, sys
from datetime import date
import dagster as dg
import pipelines.warehouse.catalog as catalog
added = [catalog.Table(*arg.split(":")[:2], ("day",), "A table the catalog gained.", asset=arg.split(":")[2])
         for arg in sys.argv[1:]]
catalog.TABLES = (*catalog.TABLES, *added)
from pipelines.config import Settings
from pipelines.definitions import build_definitions
graph = build_definitions(Settings(), start_day=date(2026, 1, 1)).resolve_asset_graph()
publish = graph.get(dg.AssetKey(["serving", "warehouse_copy"]))
keys = {t.name: dg.AssetKey([t.schema, t.table]) for t in added}
print(json.dumps({
    name: [graph.has(key) and graph.get(key).is_materializable, graph.has(key) and graph.get(key).group_name,
           key in publish.parent_keys]
    for name, key in keys.items()
}))
"""


def test_a_table_added_to_the_catalog_with_an_asset_is_materialized_upstream_of_the_publish():
    added = {"core.gained_usage_table": "usage", "snapshots.gained_snapshot_table": "snapshots"}
    done = subprocess.run(
        [sys.executable, "-c", _GROW_THE_CATALOG, *(f"{name.replace('.', ':')}:{g}" for name, g in added.items())],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    graph = json.loads(done.stdout.strip().splitlines()[-1])
    assert graph == {name: [True, group, True] for name, group in added.items()}


def test_the_graph_is_every_asset_check_job_schedule_and_sensor_named_here():
    definitions = build_definitions(Settings(), start_day=date(2026, 1, 1))
    graph = definitions.resolve_asset_graph()
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
    assert {key.to_user_string() for key in graph.get_all_asset_keys()} == {*TABLE_ASSETS, LANDS_INTO_TABLES, PUBLISH}
    assert len(graph.asset_check_keys) == len(CHECKS)


def test_dagster_validates_the_workspace():
    done = subprocess.run(
        [str(Path(sys.executable).parent / "dagster"), "definitions", "validate", "-w", "workspace.yaml"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=240,
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
