from datetime import date, timedelta

import duckdb

from pipelines.config import Settings
from pipelines.definitions import build_definitions
from tests.integration.dagster._checks import check_results


def test_the_audit_checks_the_whole_history_and_finds_what_no_daily_run_looks_at(emulator, pipeline_env, instance):
    defs = build_definitions(Settings.from_env())
    for days_ago in (9, 8):
        day = (date.today() - timedelta(days=days_ago)).isoformat()
        daily = defs.resolve_job_def("usage_daily_job").execute_in_process(instance=instance, partition_key=day)
        assert daily.success
        assert not [name for name in check_results(daily) if "whole_history_" in name], (
            "a daily run never runs the audit"
        )

    audit = defs.resolve_job_def("warehouse_audit_job").execute_in_process(instance=instance)
    checks = check_results(audit)
    # A day without the agent array is genuine on some calendar days of the emulated world: the
    # warning must say exactly what the data holds, and every other check must pass.
    with duckdb.connect(pipeline_env["WAREHOUSE_PATH"], read_only=True) as conn:
        (gaps,) = conn.execute("SELECT count(*) FROM core.daily_totals WHERE NOT agent_breakdown_present").fetchone()
    assert checks.pop("core/daily_totals:whole_history_days_without_agent_array") is (gaps == 0)
    assert audit.success and checks and all(checks.values()), checks
    assert "core/breakdowns:whole_history_grain_is_unique" in checks

    # A duplicate committed behind the pipeline's back (an older release, a hand edit).
    with duckdb.connect(pipeline_env["WAREHOUSE_PATH"]) as conn:
        conn.execute("INSERT INTO core.user_daily_totals SELECT * FROM core.user_daily_totals LIMIT 1")
    checks = check_results(defs.resolve_job_def("warehouse_audit_job").execute_in_process(instance=instance))
    assert checks["core/user_daily_totals:whole_history_grain_is_unique"] is False
    assert checks["core/breakdowns:whole_history_grain_is_unique"] is True
