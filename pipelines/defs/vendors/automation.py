"""The vendors' job and daily schedule."""

from datetime import timedelta

import dagster as dg

from pipelines.defs._automation import Automation
from pipelines.defs._tables import table_keys
from pipelines.defs.serving.assets import SERVING
from pipelines.warehouse.catalog import tables

VENDORS_JOB = "vendors_job"
vendors_job = dg.define_asset_job(
    VENDORS_JOB,
    selection=dg.AssetSelection.assets(*table_keys(tables(asset="vendors"))) | dg.AssetSelection.assets(SERVING),
    description="Land the vendors' usage of the selected days not yet final, and their state now, then publish.",
)

# The range tags of a run over several partitions in one (the asset's single-run backfill).
RANGE_START, RANGE_END = "dagster/asset_partition_range_start", "dagster/asset_partition_range_end"


def build_vendors_automation(automation: Automation) -> dg.ScheduleDefinition:
    """The daily vendor schedule, on or off by default as `automation` says."""

    @dg.schedule(
        job_name=VENDORS_JOB,
        cron_schedule="30 7 * * *",
        execution_timezone="UTC",
        default_status=automation.schedule_status,
        description="07:30 UTC: every vendor's days that may still change (today, and METRICS_TRAILING_DAYS "
        "before it; a day landed final is not asked again), in one run, and its members and spend.",
    )
    def vendors_daily_schedule(context: dg.ScheduleEvaluationContext) -> dg.RunRequest:
        today = context.scheduled_execution_time.date()
        first = today - timedelta(days=automation.trailing_days)
        return dg.RunRequest(
            run_key=today.isoformat(), tags={RANGE_START: first.isoformat(), RANGE_END: today.isoformat()}
        )

    return vendors_daily_schedule
