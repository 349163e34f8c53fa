"""The daily billing job and schedule."""

import dagster as dg

from pipelines.defs._automation import Automation
from pipelines.defs.serving.assets import SERVING

BILLING_JOB = "billing_job"
billing_job = dg.define_asset_job(
    BILLING_JOB,
    selection=dg.AssetSelection.groups("billing") | dg.AssetSelection.assets(SERVING),
    description="Land the billed usage of the months not yet closed, then publish the serving database.",
)


def build_billing_automation(automation: Automation) -> dg.ScheduleDefinition:
    """The daily billing schedule, on or off by default as `automation` says."""
    return dg.ScheduleDefinition(
        name="billing_daily_schedule",
        job=billing_job,
        cron_schedule="0 7 * * *",
        execution_timezone="UTC",
        default_status=automation.schedule_status,
        description="07:00 UTC: the billed usage of every scope's open months (a closed month never again).",
    )
