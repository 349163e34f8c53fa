"""billing_job over loopback against the emulator: with the billed usage, it lands today's billing
state and the exports per user, and publishes them to the serving database; BILLING_MONTHS=0
turns all of it off; a scope the token cannot read billing of is one line of the run."""

from __future__ import annotations

import dagster as dg
import duckdb
import pytest

from emulator import EmulatorConfig, running_emulator
from pipelines.config import Settings
from pipelines.definitions import build_definitions
from pipelines.runs import _notes
from pipelines.service.billing_wire import BILLING_ROLES


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


def test_a_scope_refused_billing_is_one_line_of_the_run_naming_everything_not_read(
    pipeline_env: dict[str, str], instance: dg.DagsterInstance, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BILLING_MONTHS", "1")
    with running_emulator(EmulatorConfig(seed=11, users=12, repos=2, billing_read=False)) as emu:
        creds = emu.credentials
        for name, value in {"SERVICE_BASE_URL": creds["base_url"], "SERVICE_TOKEN": creds["token"]}.items():
            monkeypatch.setenv(name, value)
        monkeypatch.setenv("SERVICE_ORG", creds["org"])
        monkeypatch.setenv("SERVICE_ENTERPRISE", creds["enterprise"])
        job = build_definitions(Settings.from_env()).resolve_job_def("billing_job")
        result = job.execute_in_process(instance=instance)
    assert result.success
    notes = [line for line in _notes(result) if line.startswith("billing")]
    enterprise, org = creds["enterprise"], creds["org"]
    assert len(notes) == 2, notes
    assert notes[0].startswith(f"billing of enterprise {enterprise!r} not read (cost centers, exports, usage: 403 ")
    assert notes[0].endswith(f"the token needs {BILLING_ROLES['enterprise']}; the cost views stay without it")
    assert notes[1].startswith(f"billing of organization {org!r} not read (seat breakdown, usage: 403 ")
    assert f"the token needs {BILLING_ROLES['organization']};" in notes[1]
