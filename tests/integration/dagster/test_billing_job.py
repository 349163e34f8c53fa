"""billing_job over loopback against the emulator: with the billed usage, it lands today's billing
state and the exports per user, and publishes them to the serving database; BILLING_MONTHS=0
turns all of it off."""

from __future__ import annotations

import dagster as dg
import duckdb

from pipelines.config import Settings
from pipelines.definitions import build_definitions


def _rows(path: str) -> dict[str, int]:
    names = ("billing.cost_centers", "billing.budget_user_states", "billing.seat_breakdown", "billing.user_usage")
    with duckdb.connect(path, read_only=True) as conn:
        return {name: conn.execute(f"SELECT count(*) FROM {name}").fetchall()[0][0] for name in names}


def test_billing_job_lands_the_state_and_the_exports_and_publishes_them(pipeline_env, instance, monkeypatch):
    monkeypatch.setenv("BILLING_MONTHS", "2")
    job = build_definitions(Settings.from_env()).resolve_job_def("billing_job")
    result = job.execute_in_process(instance=instance)
    assert result.success
    served = _rows(pipeline_env["SERVING_PATH"])
    assert all(served.values()), served
    exports = instance.get_latest_materialization_event(dg.AssetKey(["billing", "user_usage"]))
    assert exports.asset_materialization.metadata["months_landed"].value == 2


def test_billing_months_zero_asks_for_no_billing_state_or_export(pipeline_env, instance, monkeypatch):
    monkeypatch.setenv("BILLING_MONTHS", "0")
    job = build_definitions(Settings.from_env()).resolve_job_def("billing_job")
    assert job.execute_in_process(instance=instance).success
    assert set(_rows(pipeline_env["WAREHOUSE_PATH"]).values()) == {0}
