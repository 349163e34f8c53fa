"""The audit's job and its weekly schedule."""

import dagster as dg

from pipelines.defs.audit.checks import warehouse_audit

AUDIT_JOB = "warehouse_audit_job"
audit_job = dg.define_asset_job(
    AUDIT_JOB,
    selection=dg.AssetSelection.checks(warehouse_audit),
    description="Every usage check over the whole history (full scans; spills to disk past 512 MB).",
)


@dg.schedule(job_name=AUDIT_JOB, cron_schedule="0 3 * * 0", execution_timezone="UTC")
def warehouse_audit_schedule(context: dg.ScheduleEvaluationContext) -> dg.RunRequest:
    """Sunday 03:00 UTC, before the daily runs."""
    return dg.RunRequest(run_key=context.scheduled_execution_time.date().isoformat())
