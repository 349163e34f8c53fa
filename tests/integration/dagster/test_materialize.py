import json
from datetime import date, timedelta
from pathlib import Path

import dagster as dg
import duckdb
import httpx

from emulator import EmulatorConfig, running_emulator
from emulator.reportdata import ReportData
from pipelines.config import Settings
from pipelines.definitions import build_definitions
from tests.integration.dagster._checks import check_results


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
        params={"day": day},
        headers=headers,
    ).json()
    return sum(httpx.get(link).text.count("\n") for link in meta["download_links"])


def test_partition_range_lands_every_scope_day_and_user(emulator, pipeline_env, instance):
    start, end = _days(8, 5)  # final days: their counts no longer change between fetches
    defs = build_definitions(Settings.from_env())
    result = defs.resolve_job_def("usage_daily_job").execute_in_process(instance=instance, tags=_range_tags(start, end))
    assert result.success

    with duckdb.connect(pipeline_env["SERVING_PATH"], read_only=True) as conn:
        per_scope = dict(
            conn.execute("SELECT scope, count(DISTINCT day) FROM core.daily_totals GROUP BY scope").fetchall()
        )
        org_users = conn.execute("SELECT count(*) FROM core.user_daily_totals WHERE scope = 'organization'").fetchone()[
            0
        ]
        files = conn.execute("SELECT count(*) FROM raw.report_files").fetchone()[0]
    assert per_scope == {"organization": 4, "enterprise": 4}
    expected_users = sum(
        _user_lines(emulator.credentials, (date.fromisoformat(start) + timedelta(days=n)).isoformat()) for n in range(4)
    )
    assert org_users == expected_users
    assert files >= 16  # 4 days x 2 scopes x 2 levels, at least one file each

    materialized = instance.get_latest_materialization_event(dg.AssetKey(["core", "daily_totals"]))
    metadata = materialized.asset_materialization.metadata
    assert metadata["days_covered"].value == 4
    assert metadata["dagster/row_count"].value == 8


def test_rerunning_a_partition_changes_nothing(emulator, pipeline_env, instance):
    start, end = _days(9, 9)
    job = build_definitions(Settings.from_env()).resolve_job_def("usage_daily_job")
    snapshots = []
    for _ in range(2):
        assert job.execute_in_process(instance=instance, tags=_range_tags(start, end)).success
        with duckdb.connect(pipeline_env["WAREHOUSE_PATH"], read_only=True) as conn:
            snapshots.append(
                conn.execute(
                    "SELECT count(*), sum(user_initiated_interaction_count) FROM core.user_daily_totals"
                ).fetchall()
                + conn.execute("SELECT count(*), sum(agent_job_starts) FROM core.agent_activity").fetchall()
            )
    assert snapshots[0] == snapshots[1]


def _serve_report_file(tmp_path: Path, monkeypatch, *, day: date, lines: list[str]):
    """An emulator whose organization users-1-day report of `day` is exactly `lines`; the
    pipeline's environment points at it and at files under tmp_path."""
    report = tmp_path / f"users-{len(list(tmp_path.glob('users-*')))}.ndjson"
    report.write_text("".join(line + "\n" for line in lines))
    emu = running_emulator(EmulatorConfig(seed=5, users=5, repos=1, report_file=report, report_file_day=day))
    creds = emu.__enter__().credentials
    for name, value in {
        "SERVICE_BASE_URL": creds["base_url"],
        "SERVICE_TOKEN": creds["token"],
        "SERVICE_ORG": creds["org"],
        "WAREHOUSE_PATH": str(tmp_path / "w.duckdb"),
        "RAW_DIR": str(tmp_path / "raw"),
        "SERVICE_ETAG_CACHE": str(tmp_path / "etag.sqlite3"),
        "SERVING_PATH": str(tmp_path / "serving.duckdb"),
        "LAKE_PATH": str(tmp_path / "lake"),
        "METRICS_START_DAY": (day - timedelta(days=3)).isoformat(),
    }.items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("SERVICE_ENTERPRISE", raising=False)
    return emu


def _user_record(day: date, user_id: int, interactions: int) -> str:
    # The organization's own id: a record naming another entity would be quarantined as foreign.
    org_id = ReportData(seed=5, users=5, org="acme", enterprise="acme-corp", first_day=day).organization_id
    return json.dumps(
        {
            "user_id": user_id,
            "user_login": f"dev-{user_id}",
            "day": day.isoformat(),
            "organization_id": org_id,
            "user_initiated_interaction_count": interactions,
            "code_generation_activity_count": 2,
            "code_acceptance_activity_count": 1,
        }
    )


def test_a_quarantined_line_holds_back_its_own_run_but_not_the_next_day(tmp_path, monkeypatch, instance):
    day = date.today() - timedelta(days=6)
    emu = _serve_report_file(tmp_path, monkeypatch, day=day, lines=[_user_record(day, 7, 3), "{not json"])
    try:
        job = build_definitions(Settings.from_env()).resolve_job_def("usage_daily_job")
        bad = job.execute_in_process(instance=instance, partition_key=day.isoformat(), raise_on_error=False)
        assert not bad.success
        assert check_results(bad)["raw/report_files:quarantine_is_empty"] is False
        assert not Path(tmp_path / "serving.duckdb").exists(), "downstream of a failed blocking check must not run"
        with duckdb.connect(str(tmp_path / "w.duckdb"), read_only=True) as conn:
            assert conn.execute("SELECT count(*) FROM core.user_daily_totals WHERE user_id = 7").fetchone()[0] == 1
            line, reason = conn.execute("SELECT line_number, reason FROM raw.quarantine").fetchone()
        assert line == 2 and reason

        # The next day's run: the old day's quarantined line is recorded, not this run's to report.
        next_day = job.execute_in_process(
            instance=instance, partition_key=(day + timedelta(days=1)).isoformat(), raise_on_error=False
        )
    finally:
        emu.__exit__(None, None, None)
    assert next_day.success
    assert check_results(next_day)["raw/report_files:quarantine_is_empty"] is True
    with duckdb.connect(str(tmp_path / "serving.duckdb"), read_only=True) as conn:
        assert conn.execute("SELECT count(DISTINCT day) FROM core.user_daily_totals").fetchone()[0] == 2
        assert conn.execute("SELECT count(*) FROM raw.quarantine").fetchone()[0] == 1


def test_a_report_with_two_different_lines_of_one_user_lands_the_rest_and_publishes_nothing(
    tmp_path, monkeypatch, instance
):
    day = date.today() - timedelta(days=6)
    emu = _serve_report_file(tmp_path, monkeypatch, day=day, lines=[_user_record(day, 7, 3), _user_record(day, 8, 4)])
    try:
        assert (
            build_definitions(Settings.from_env())
            .resolve_job_def("usage_daily_job")
            .execute_in_process(instance=instance, partition_key=day.isoformat())
            .success
        )
    finally:
        emu.__exit__(None, None, None)
    published = (tmp_path / "serving.duckdb").stat().st_mtime_ns

    # The day fetched again: user 7 on two lines with different figures, user 8 gone, user 9 new.
    # The pair is quarantined (it broke the grain check and rolled the whole day back before),
    # the rest lands, and the blocking quarantine check keeps the publish at the last good state.
    emu = _serve_report_file(
        tmp_path,
        monkeypatch,
        day=day,
        lines=[_user_record(day, 7, 30), _user_record(day, 7, 31), _user_record(day, 9, 5)],
    )
    try:
        again = (
            build_definitions(Settings.from_env())
            .resolve_job_def("usage_daily_job")
            .execute_in_process(instance=instance, partition_key=day.isoformat(), raise_on_error=False)
        )
    finally:
        emu.__exit__(None, None, None)
    assert not again.success
    results = check_results(again)
    assert results["core/user_daily_totals:grain_is_unique"] is True
    assert results["raw/report_files:quarantine_is_empty"] is False
    with duckdb.connect(str(tmp_path / "w.duckdb"), read_only=True) as conn:
        rows = conn.execute(
            "SELECT user_id, user_initiated_interaction_count FROM core.user_daily_totals"
            " WHERE scope = 'organization' ORDER BY 1"
        ).fetchall()
        files = conn.execute(
            "SELECT count(*) FROM raw.report_files WHERE scope = 'organization' AND level = 'user'"
        ).fetchone()[0]
    assert rows == [(9, 5)], "user 7's two lines are quarantined, the rest of the fetch landed"
    assert files == 1
    assert (tmp_path / "serving.duckdb").stat().st_mtime_ns == published, "nothing was published"


def test_every_usage_asset_reports_its_table_s_row_count(emulator, pipeline_env, instance):
    start, end = _days(8, 6)
    defs = build_definitions(Settings.from_env())
    result = defs.resolve_job_def("usage_daily_job").execute_in_process(instance=instance, tags=_range_tags(start, end))
    assert result.success
    reported = {
        event.asset_key.to_user_string(): event.materialization.metadata["dagster/row_count"].value
        for event in result.get_asset_materialization_events()
        if "dagster/row_count" in event.materialization.metadata
    }
    with duckdb.connect(pipeline_env["WAREHOUSE_PATH"], read_only=True) as conn:
        actual = {key: conn.execute(f"SELECT count(*) FROM {key.replace('/', '.')}").fetchone()[0] for key in reported}
    assert reported == actual
    # The four that reported 0 while their tables held rows (their count was a list of its own).
    for key in ("core/agent_days", "core/user_team_days", "core/team_days", "core/dim_team"):
        assert reported[key] > 0, key
