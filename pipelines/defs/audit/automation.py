"""The audit's job and its weekly schedule."""

import dagster as dg

from pipelines.defs._automation import Automation
from pipelines.defs.audit.checks import warehouse_audit

AUDIT_JOB = "warehouse_audit_job"
audit_job = dg.define_asset_job(
    AUDIT_JOB,
    selection=dg.AssetSelection.checks(warehouse_audit),
    description="Every usage check over the whole history (full scans; spills to disk past 512 MB).",
)


def build_audit_automation(automation: Automation) -> dg.ScheduleDefinition:
    """The weekly audit schedule, on or off by default as `automation` says."""

    @dg.schedule(
        job_name=AUDIT_JOB,
        cron_schedule="0 3 * * 0",
        execution_timezone="UTC",
        default_status=automation.schedule_status,
        description="Sunday 03:00 UTC, before the daily runs: every usage check over the whole history.",
    )
    def warehouse_audit_schedule(context: dg.ScheduleEvaluationContext) -> dg.RunRequest:
        return dg.RunRequest(run_key=context.scheduled_execution_time.date().isoformat())

    return warehouse_audit_schedule
