"""Alerts through Dagster, delivered to a loopback webhook and SMTP server: a failed run (a
blocking check that held back the publish) from `metrics-etl run`'s own process and from the
daemon's sensor, each once; a day gone stale and a warning that turns on then clears, each told
once however many ticks see it."""

from __future__ import annotations

import io
from dataclasses import replace
from datetime import UTC, date, datetime, timedelta

import dagster as dg
import pytest

from emulator import EmulatorConfig, RecordDrift, running_emulator
from pipelines.config import Settings
from pipelines.definitions import build_definitions
from pipelines.runs import RunFailed, RunPlan, run_plan
from tests._alerts import HOOK_KEY, SMTP_PASSWORD, smtp_server, webhook_server
from tests.integration.dagster.test_materialize import _serve_report_file, _user_record

UI = "https://dagster.example.org"


@pytest.fixture
def channels(monkeypatch):
    with webhook_server() as hook, smtp_server() as mailbox:
        monkeypatch.setenv("METRICS_ALERTS", f"{hook.url},{mailbox.url}")
        monkeypatch.setenv("DAGSTER_WEBSERVER_URL", UI)
        yield hook, mailbox


def _arrived(channels) -> list[str]:
    """Every message so far, the webhook's and the mailbox's, which must say the same."""
    hook, mailbox = channels
    mails = mailbox.texts()
    assert [m.split("\n", 1)[0] for m in mails] == [t.split("\n", 1)[0] for t in hook.texts]
    for text in (*hook.texts, *mails):
        assert HOOK_KEY not in text and SMTP_PASSWORD not in text
        assert "dev-7" not in text  # a login in the report's lines
    return list(hook.texts)


def _failure_sensor_tick(defs: dg.Definitions, instance: dg.DagsterInstance, run_id: str) -> None:
    run = instance.get_run_by_id(run_id)
    failure = next(
        e.dagster_event for e in instance.all_logs(run_id) if e.dagster_event and e.dagster_event.is_run_failure
    )
    context = dg.build_run_status_sensor_context(
        sensor_name="run_failure_alert_sensor",
        dagster_event=failure,
        dagster_instance=instance,
        dagster_run=run,
    ).for_run_failure()
    defs.resolve_sensor_def("run_failure_alert_sensor")(context)


def test_a_run_held_back_by_a_blocking_check_is_told_once_by_the_process_and_once_by_the_sensor(
    channels, tmp_path, monkeypatch
):
    day = date.today() - timedelta(days=6)
    emu = _serve_report_file(tmp_path, monkeypatch, day=day, lines=[_user_record(day, 7, 3), "{not json"])
    monkeypatch.setenv("METRICS_HOME", str(tmp_path / "home"))
    try:
        settings = Settings.from_env()
        plan = RunPlan(first_day=day, last_day=day, latest_28_day=False, snapshots=False)
        with pytest.raises(RunFailed):
            run_plan(plan, settings=settings, start_day=day - timedelta(days=3), out=io.StringIO())
        # The command's warnings (the day is old: the newest has not landed) are told too.
        (told,) = [text for text in _arrived(channels) if "usage_daily_job" in text]
        defs = build_definitions(settings, start_day=day - timedelta(days=3))
        with dg.DagsterInstance.from_config(str(settings.dagster_home)) as instance:
            (cli_run,) = instance.get_runs()
            assert told.startswith(f"metrics-etl: usage_daily_job for {day} not published, a blocking check failed\n")
            assert "scope: organization acme" in told
            assert "\ncheck quarantine_is_empty on raw/report_files found 1" in told
            assert f"full log: {settings.logs_dir}" in told and told.endswith(f"{UI}/runs/{cli_run.run_id}")

            # The daemon's sensor leaves the command's run to it: still one message.
            before = len(_arrived(channels))
            _failure_sensor_tick(defs, instance, cli_run.run_id)
            assert len(_arrived(channels)) == before

            # A run of the daemon's (no process alerts it) is told by the sensor.
            result = defs.resolve_job_def("usage_daily_job").execute_in_process(
                instance=instance, partition_key=day.isoformat(), raise_on_error=False
            )
            assert not result.success
            _failure_sensor_tick(defs, instance, result.run_id)
    finally:
        emu.__exit__(None, None, None)
    _, second = [text for text in _arrived(channels) if "usage_daily_job" in text]
    assert second.startswith(f"metrics-etl: usage_daily_job for {day} not published")
    assert f"full log: run {result.run_id} in Dagster's UI" in second and second.endswith(f"{UI}/runs/{result.run_id}")


def _expected_day() -> str:
    """The day Dagster's freshness check expects now: yesterday once 09:00 UTC has passed."""
    now = datetime.now(UTC)
    return (now.date() - timedelta(days=1 if now.hour >= 9 else 2)).isoformat()


def _warning_tick(defs: dg.Definitions, instance: dg.DagsterInstance, cursor: str | None) -> str | None:
    context = dg.build_sensor_context(instance=instance, cursor=cursor, repository_def=defs.get_repository_def())
    result = defs.resolve_sensor_def("warning_alert_sensor")(context)
    return result.cursor


def test_a_stale_day_and_a_warning_turning_on_then_off_are_each_told_once(channels, tmp_path, monkeypatch):
    day = (datetime.now(UTC).date() - timedelta(days=6)).isoformat()
    config = EmulatorConfig(seed=51, users=12, repos=1, record_drift=RecordDrift(undeclared_field="totals_by_widget"))
    with running_emulator(config) as emu, dg.instance_for_test() as instance:
        creds = emu.credentials
        for name, value in {
            "SERVICE_BASE_URL": creds["base_url"],
            "SERVICE_TOKEN": creds["token"],
            "SERVICE_ORG": creds["org"],
            "METRICS_HOME": str(tmp_path),
            "METRICS_START_DAY": (datetime.now(UTC).date() - timedelta(days=20)).isoformat(),
        }.items():
            monkeypatch.setenv(name, value)
        monkeypatch.delenv("SERVICE_ENTERPRISE", raising=False)
        defs = build_definitions(Settings.from_env())
        job = defs.resolve_job_def("usage_daily_job")
        cursor = _warning_tick(defs, instance, None)  # a first tick starts from now: nothing before is told
        assert job.execute_in_process(instance=instance, partition_key=day).success

        cursor = _warning_tick(defs, instance, cursor)
        told = _arrived(channels)
        stale = [t for t in told if t.startswith("metrics-etl: stale data")]
        drift = [t for t in told if "fields_are_declared" in t]
        assert stale == [
            f"metrics-etl: stale data: core/daily_totals, day {_expected_day()} has not landed by its deadline\n"
            f"scope: organization {creds['org']}\n{UI}/runs/" + stale[0].rsplit("/", 1)[1]
        ]
        (on,) = drift
        assert on.startswith("metrics-etl warning: fields_are_declared on raw/field_drift turned on\n")
        assert "totals_by_widget" in on

        # The warning stays on at the next run: no new message.
        assert job.execute_in_process(instance=instance, partition_key=day).success
        cursor = _warning_tick(defs, instance, cursor)
        cursor = _warning_tick(defs, instance, cursor)
        assert len(_arrived(channels)) == len(told)

        # The service stops sending the field: the warning clears, once.
        emu.state.config = replace(emu.state.config, record_drift=RecordDrift())
        assert job.execute_in_process(instance=instance, partition_key=day).success
        cursor = _warning_tick(defs, instance, cursor)
        _warning_tick(defs, instance, cursor)
        after = _arrived(channels)[len(told) :]
    assert [t.split("\n", 1)[0] for t in after] == ["metrics-etl: fields_are_declared on raw/field_drift cleared"]
