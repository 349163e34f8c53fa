from datetime import UTC, datetime, timedelta

import dagster as dg

from pipelines.defs._automation import Automation
from pipelines.defs.resources import ServiceResource
from pipelines.defs.usage.automation import build_usage_automation

(usage_daily_schedule, _), (report_availability_sensor,) = build_usage_automation(Automation())


def test_schedule_requests_the_newest_day_and_the_trailing_days_that_may_change():
    context = dg.build_schedule_context(scheduled_execution_time=datetime(2026, 11, 20, 6, tzinfo=UTC))
    requests = list(usage_daily_schedule(context))
    assert [r.partition_key for r in requests] == ["2026-11-16", "2026-11-17", "2026-11-18", "2026-11-19"]
    assert len({r.run_key for r in requests}) == 4


def test_schedule_trailing_days_are_configurable():
    (schedule, _), _ = build_usage_automation(Automation(trailing_days=1))
    context = dg.build_schedule_context(scheduled_execution_time=datetime(2026, 11, 20, 6, tzinfo=UTC))
    assert [r.partition_key for r in schedule(context)] == ["2026-11-18", "2026-11-19"]


def _tick(service: ServiceResource, cursor: str | None):
    with dg.build_sensor_context(cursor=cursor, resources={"service": service}) as context:
        return report_availability_sensor(context)


def test_sensor_fires_once_when_a_new_day_becomes_available(emulator, pipeline_env):
    creds = emulator.credentials
    service = ServiceResource(
        base_url=creds["base_url"],
        token=creds["token"],
        orgs=[creds["org"]],
        etag_cache=pipeline_env["SERVICE_ETAG_CACHE"],
    )
    today = datetime.now(UTC).date()
    yesterday = today - timedelta(days=1)
    try:
        emulator.set_today(yesterday)  # the platform has not produced yesterday's report yet
        quiet = _tick(service, cursor=None)
        assert isinstance(quiet, dg.SkipReason)

        emulator.set_today(today)
        fired = _tick(service, cursor=None)
        assert [r.partition_key for r in fired.run_requests] == [yesterday.isoformat()]
        assert fired.cursor == yesterday.isoformat()

        again = _tick(service, cursor=fired.cursor)
        assert isinstance(again, dg.SkipReason)
    finally:
        emulator.set_today(today)
