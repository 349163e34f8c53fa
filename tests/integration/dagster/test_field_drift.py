"""A service that changed under the pipeline: an undeclared field on every record and mistyped
values on some user records, in both dialects. Every line lands, the drift is counted and named
(raw.field_drift, bi.field_drift, the fields_are_declared warning), and the warning clears once
the field is declared."""

from dataclasses import replace
from datetime import UTC, datetime, timedelta

import dagster as dg
import duckdb
import polars as pl
import pytest

from emulator import EmulatorConfig, RecordDrift, running_emulator
from pipelines.config import Settings
from pipelines.definitions import build_definitions
from pipelines.defs import resources
from pipelines.ingest._wire import wire_of
from pipelines.transform import schema

DAY = (datetime.now(UTC).date() - timedelta(days=6)).isoformat()
DRIFT = RecordDrift(undeclared_field="totals_by_future_widget", mistyped_every=3)


def _env(emu, tmp_path, monkeypatch):
    creds = emu.credentials
    env = {
        "SERVICE_BASE_URL": creds["base_url"],
        "SERVICE_TOKEN": creds["token"],
        "SERVICE_ORG": creds["org"],
        "SERVICE_DIALECT": creds["dialect"],
        "WAREHOUSE_PATH": str(tmp_path / "warehouse.duckdb"),
        "RAW_DIR": str(tmp_path / "raw"),
        "SERVICE_ETAG_CACHE": str(tmp_path / "http-cache.sqlite3"),
        "SERVING_PATH": str(tmp_path / "serving.duckdb"),
        "LAKE_PATH": str(tmp_path / "lake"),
        "METRICS_START_DAY": (datetime.now(UTC).date() - timedelta(days=20)).isoformat(),
    }
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("SERVICE_ENTERPRISE", raising=False)


def _run_day(instance: dg.DagsterInstance) -> dict[str, dg.AssetCheckEvaluation]:
    job = build_definitions(Settings.from_env()).resolve_job_def("usage_daily_job")
    result = job.execute_in_process(instance=instance, partition_key=DAY)
    assert result.success
    return {
        e.asset_check_evaluation_data.check_name: e.asset_check_evaluation_data
        for e in result.all_events
        if e.event_type_value == "ASSET_CHECK_EVALUATION"
    }


@pytest.mark.parametrize("dialect", ["service", "github"])
def test_drift_lands_every_line_is_counted_and_named_then_clears_once_declared(dialect, tmp_path, monkeypatch):
    config = EmulatorConfig(seed=51, users=12, repos=1, dialect=dialect, record_drift=DRIFT)
    with running_emulator(config) as emu, dg.instance_for_test() as instance:
        _env(emu, tmp_path, monkeypatch)
        checks = _run_day(instance)
        with duckdb.connect(str(tmp_path / "warehouse.duckdb"), read_only=True) as conn:
            users = conn.execute("SELECT count(*) FROM core.user_daily_totals WHERE day = ?", [DAY]).fetchone()[0]
            quarantined = conn.execute("SELECT count(*) FROM raw.quarantine").fetchone()[0]
            lines = conn.execute(
                "SELECT sum(records) FROM raw.report_files WHERE level = 'user' AND report_start_day = ?", [DAY]
            ).fetchone()[0]
            mistyped = conn.execute(
                "SELECT count(*) FROM core.user_daily_totals WHERE day = ? AND used_agent IS NULL"
                " AND json_extract(extra, '$.used_agent') IS NOT NULL",
                [DAY],
            ).fetchone()[0]
            drift = dict(
                ((path, kind), records)
                for path, kind, records in conn.execute(
                    "SELECT path, drift, sum(records) FROM raw.field_drift WHERE level = 'user' GROUP BY ALL"
                ).fetchall()
            )
        with duckdb.connect(str(tmp_path / "serving.duckdb"), read_only=True) as bi:
            shares = dict(
                ((path, kind), share)
                for path, kind, share in bi.execute(
                    "SELECT path, drift, share FROM bi.field_drift WHERE level = 'user'"
                ).fetchall()
            )
        every_third = len(range(0, users, 3))
        assert quarantined == 0 and users == lines  # every line landed
        assert mistyped == every_third
        assert drift[("totals_by_future_widget", "undeclared")] == users
        for path in ("ai_credits_used", "used_agent", "loc_added_sum"):
            assert drift[(path, "mistyped")] == every_third, path
        assert shares[("totals_by_future_widget", "undeclared")] == 1.0
        warning = checks["fields_are_declared"]
        assert not warning.passed and warning.severity == dg.AssetCheckSeverity.WARN
        assert "totals_by_future_widget (undeclared" in str(warning.metadata["detail"].value)

        # The field declared (as a release would declare it), the mistyped values fixed by the
        # service: the next run's warning clears.
        declared = {"widgets": pl.Int64(), "kind": pl.String()}
        monkeypatch.setitem(schema.RECORD_OBJECTS, "totals_by_future_widget", (declared, frozenset({"aggregate"})))
        monkeypatch.setattr(resources, "_migrated", set())  # a new release is a new process: it migrates
        wire_of.cache_clear()
        emu.state.config = replace(emu.state.config, record_drift=RecordDrift(undeclared_field=DRIFT.undeclared_field))
        try:
            after = _run_day(instance)["fields_are_declared"]
            assert after.passed, after.metadata["detail"].value
            with duckdb.connect(str(tmp_path / "warehouse.duckdb"), read_only=True) as conn:
                widgets = conn.execute(
                    "SELECT totals_by_future_widget_widgets FROM core.daily_totals WHERE day = ?", [DAY]
                ).fetchall()
            assert widgets == [(3,)]  # the declared field has its column, and the day re-landed fills it
        finally:
            monkeypatch.undo()
            wire_of.cache_clear()
