"""The daily schedules and the report-availability sensor of the usage reports."""

from collections.abc import Iterator
from datetime import date, timedelta

import dagster as dg

from pipelines._clock import utc_today
from pipelines.defs._automation import Automation
from pipelines.defs._tables import table_keys
from pipelines.defs.audit.checks import warehouse_audit
from pipelines.defs.partitions import trailing_days
from pipelines.defs.resources import ServiceResource
from pipelines.defs.serving.assets import SERVING
from pipelines.defs.usage._reports import report_refs
from pipelines.defs.usage.assets import LATEST_28_DAY_REPORT, USAGE_TABLES
from pipelines.service import ReportRef, fetch_report_metadata

DAILY_JOB = "usage_daily_job"
LATEST_JOB = "usage_latest_job"


_SERVING = dg.AssetSelection.assets(SERVING)
usage_daily_job = dg.define_asset_job(
    DAILY_JOB,
    # A job selecting assets runs every check on them: the whole-history audit must stay out
    # of the daily run (its full scans are what a daily run must not pay for).
    selection=(dg.AssetSelection.assets(*table_keys(USAGE_TABLES)) | _SERVING)
    - dg.AssetSelection.checks(warehouse_audit),
    description="Land the 1-day usage reports of the selected days, then publish the serving database.",
)
usage_latest_job = dg.define_asset_job(
    LATEST_JOB,
    selection=dg.AssetSelection.assets(LATEST_28_DAY_REPORT) | _SERVING,
    description="Land the latest 28-day usage reports, then publish the serving database.",
)


def build_usage_automation(automation: Automation) -> tuple[list[dg.ScheduleDefinition], list[dg.SensorDefinition]]:
    """The usage schedules and sensor, on or off by default as `automation` says."""

    @dg.schedule(
        job_name=DAILY_JOB,
        cron_schedule="0 6 * * *",
        execution_timezone="UTC",
        default_status=automation.schedule_status,
        description="06:00 UTC: yesterday's 1-day reports and the trailing days that may still change "
        "(METRICS_TRAILING_DAYS).",
    )
    def usage_daily_schedule(context: dg.ScheduleEvaluationContext) -> Iterator[dg.RunRequest]:
        """The newest available day (yesterday) and the trailing days that may still change."""
        scheduled = context.scheduled_execution_time.date()
        for day in trailing_days(newest=scheduled - timedelta(days=1), count=automation.trailing_days):
            yield dg.RunRequest(run_key=f"{day}@{scheduled}", partition_key=day.isoformat())

    @dg.schedule(
        job_name=LATEST_JOB,
        cron_schedule="30 6 * * *",
        execution_timezone="UTC",
        default_status=automation.schedule_status,
        description="06:30 UTC: the latest 28-day reports, after the daily run.",
    )
    def usage_latest_schedule(context: dg.ScheduleEvaluationContext) -> dg.RunRequest:
        """The latest 28-day report, once a day after the daily reports."""
        return dg.RunRequest(run_key=context.scheduled_execution_time.date().isoformat())

    @dg.sensor(
        job_name=DAILY_JOB,
        minimum_interval_seconds=900,
        default_status=automation.sensor_status,
        description="Every 15 minutes: asks whether the next day's report exists and requests its run once.",
    )
    def report_availability_sensor(
        context: dg.SensorEvaluationContext, service: ServiceResource
    ) -> dg.SensorResult | dg.SkipReason:
        """Requests a day's run as soon as its report is available, once per day.

        The cursor is the newest day already requested; only days after it are probed, so an
        available day is never requested twice and a quiet tick costs one metadata request (and one
        conditional request for the organization's name).
        """
        settings = service.settings()
        today = utc_today()
        requested = date.fromisoformat(context.cursor) if context.cursor else today - timedelta(days=2)
        probe = [requested + timedelta(days=n) for n in range(1, (today - requested).days)]
        if not probe:
            return dg.SkipReason(f"already requested {requested}, the newest possible day")
        newly_available: list[date] = []
        with service.client() as client:
            refs = report_refs(settings, kind="1-day", days=probe, client=client)
            for day in probe:
                ref: ReportRef = next(r for r in refs if r.day == day)
                if fetch_report_metadata(client, ref) is None:
                    break
                newly_available.append(day)
        if not newly_available:
            return dg.SkipReason(f"no report yet for {probe[0]}")
        return dg.SensorResult(
            run_requests=[
                dg.RunRequest(run_key=day.isoformat(), partition_key=day.isoformat()) for day in newly_available
            ],
            cursor=newly_available[-1].isoformat(),
        )

    return [usage_daily_schedule, usage_latest_schedule], [report_availability_sensor]
