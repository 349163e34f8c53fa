"""The daily snapshot job and schedule."""

import dagster as dg

from pipelines._clock import utc_today
from pipelines.defs._automation import Automation
from pipelines.defs.serving.assets import SERVING
from pipelines.defs.snapshots.assets import SNAPSHOT_KEYS
from pipelines.defs.snapshots.days import add_snapshot_day

SNAPSHOT_JOB = "snapshots_job"
snapshots_job = dg.define_asset_job(
    SNAPSHOT_JOB,
    selection=dg.AssetSelection.assets(*SNAPSHOT_KEYS.values(), SERVING),
    description="Take today's snapshot of repositories, counts, issues, members and seats.",
)


def build_snapshot_automation(automation: Automation) -> dg.ScheduleDefinition:
    """The daily snapshot schedule, on or off by default as `automation` says."""

    @dg.schedule(
        job_name=SNAPSHOT_JOB,
        cron_schedule="0 5 * * *",
        execution_timezone="UTC",
        default_status=automation.schedule_status,
        description="05:00 UTC: today's snapshot of repositories, counts, issues, members and seats.",
    )
    def snapshots_daily_schedule(context: dg.ScheduleEvaluationContext) -> dg.RunRequest | dg.SkipReason:
        day, today = context.scheduled_execution_time.date(), utc_today()
        if day != today:
            # A tick the daemon missed (it was down that day): no partition that can never be taken.
            return dg.SkipReason(
                f"the snapshot of {day} can no longer be taken (today is {today}, UTC): the service shows "
                "only its current state"
            )
        add_snapshot_day(context.instance, day)
        return dg.RunRequest(run_key=day.isoformat(), partition_key=day.isoformat())

    return snapshots_daily_schedule
