import json
from datetime import date, timedelta
from pathlib import Path

import dagster as dg
import duckdb
import httpx

from emulator import EmulatorConfig, running_emulator
from emulator.reportdata import ReportData
from pipelines.definitions import build_definitions


def _days(first: int, last: int) -> tuple[str, str]:
    today = date.today()
    return (today - timedelta(days=first)).isoformat(), (today - timedelta(days=last)).isoformat()


def _range_tags(start: str, end: str) -> dict[str, str]:
    return {"dagster/asset_partition_range_start": start, "dagster/asset_partition_range_end": end}


def _user_lines(creds: dict, day: str) -> int:
    """Lines of the org's users-1-day report, counted straight from the NDJSON files."""
    headers = {"Authorization": f"token {creds['token']}", "X-Service-Api-Version": "2026-03-10"}
    meta = httpx.get(
        f"{creds['base_url']}/orgs/{creds['org']}/assistant/metrics/reports/users-1-day",
        params={"day": day}, headers=headers,
    ).json()
    return sum(httpx.get(link).text.count("\n") for link in meta["download_links"])


def test_partition_range_lands_every_scope_day_and_user(emulator, pipeline_env, instance):
    start, end = _days(8, 5)  # final days: their counts no longer change between fetches
    defs = build_definitions()
    result = defs.resolve_job_def("usage_daily_job").execute_in_process(instance=instance, tags=_range_tags(start, end))
    assert result.success

    with duckdb.connect(pipeline_env["SERVING_PATH"], read_only=True) as conn:
        per_scope = dict(conn.execute("SELECT scope, count(DISTINCT day) FROM core.daily_totals GROUP BY scope").fetchall())
        org_users = conn.execute(
            "SELECT count(*) FROM core.user_daily_totals WHERE scope = 'organization'"
        ).fetchone()[0]
        files = conn.execute("SELECT count(*) FROM raw.report_files").fetchone()[0]
    assert per_scope == {"organization": 4, "enterprise": 4}
    expected_users = sum(_user_lines(emulator.credentials, (date.fromisoformat(start) + timedelta(days=n)).isoformat()) for n in range(4))
    assert org_users == expected_users
    assert files >= 16  # 4 days x 2 scopes x 2 levels, at least one file each

    materialized = instance.get_latest_materialization_event(dg.AssetKey(["core", "daily_totals"]))
    metadata = materialized.asset_materialization.metadata
    assert metadata["days_covered"].value == 4
    assert metadata["dagster/row_count"].value == 8


def test_rerunning_a_partition_changes_nothing(emulator, pipeline_env, instance):
    start, end = _days(9, 9)
    job = build_definitions().resolve_job_def("usage_daily_job")
    snapshots = []
    for _ in range(2):
        assert job.execute_in_process(instance=instance, tags=_range_tags(start, end)).success
        with duckdb.connect(pipeline_env["WAREHOUSE_PATH"], read_only=True) as conn:
            snapshots.append(conn.execute(
                "SELECT count(*), sum(user_initiated_interaction_count) FROM core.user_daily_totals"
            ).fetchall() + conn.execute("SELECT count(*), sum(agent_job_starts) FROM core.agent_activity").fetchall())
    assert snapshots[0] == snapshots[1]


def test_a_quarantined_line_fails_its_blocking_check_and_keeps_the_serving_copy_back(tmp_path, monkeypatch, instance):
    day = date.today() - timedelta(days=6)
    # The organization's own id: a record naming another entity would be quarantined as foreign.
    org_id = ReportData(seed=5, users=5, org="acme", enterprise="acme-corp", first_day=day).organization_id
    good = {"user_id": 7, "user_login": "dev-7", "day": day.isoformat(), "organization_id": org_id,
            "user_initiated_interaction_count": 3, "code_generation_activity_count": 2,
            "code_acceptance_activity_count": 1}
    report = tmp_path / "users.ndjson"
    report.write_text(json.dumps(good) + "\n" + "{not json\n")
    with running_emulator(EmulatorConfig(seed=5, users=5, repos=1, report_file=report, report_file_day=day)) as emu:
        creds = emu.credentials
        for name, value in {
            "SERVICE_BASE_URL": creds["base_url"], "SERVICE_TOKEN": creds["token"], "SERVICE_ORG": creds["org"],
            "WAREHOUSE_PATH": str(tmp_path / "w.duckdb"), "RAW_DIR": str(tmp_path / "raw"),
            "SERVICE_ETAG_CACHE": str(tmp_path / "etag.sqlite3"), "SERVING_PATH": str(tmp_path / "serving.duckdb"),
            "METRICS_START_DAY": (day - timedelta(days=3)).isoformat(),
        }.items():
            monkeypatch.setenv(name, value)
        monkeypatch.delenv("SERVICE_ENTERPRISE", raising=False)
        job = build_definitions().resolve_job_def("usage_daily_job")
        result = job.execute_in_process(instance=instance, partition_key=day.isoformat(), raise_on_error=False)

    assert not result.success
    checks = {
        e.asset_check_evaluation_data.check_name: e.asset_check_evaluation_data.passed
        for e in result.all_events if e.event_type_value == "ASSET_CHECK_EVALUATION"
    }
    assert checks["quarantine_is_empty"] is False
    assert not Path(tmp_path / "serving.duckdb").exists(), "downstream of a failed blocking check must not run"
    with duckdb.connect(str(tmp_path / "w.duckdb"), read_only=True) as conn:
        assert conn.execute("SELECT count(*) FROM core.user_daily_totals WHERE user_id = 7").fetchone()[0] == 1
        line, reason = conn.execute("SELECT line_number, reason FROM raw.quarantine").fetchone()
    assert line == 2 and reason
