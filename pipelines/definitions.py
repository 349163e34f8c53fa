"""The Definitions: `build_definitions(settings)` for code that has its settings, and `defs`, the
lazily built entry point workspace.yaml and `dagster dev -m pipelines.definitions` load."""

from __future__ import annotations

from datetime import date

import dagster as dg

from pipelines._clock import utc_today
from pipelines._memory import bound_malloc
from pipelines.config import Settings
from pipelines.defs._automation import Automation
from pipelines.defs.alerts import build_alert_sensors
from pipelines.defs.audit.automation import audit_job, build_audit_automation
from pipelines.defs.audit.checks import warehouse_audit
from pipelines.defs.billing.assets import billing_usage
from pipelines.defs.billing.automation import billing_job, build_billing_automation
from pipelines.defs.billing.state import billing_exports, billing_state
from pipelines.defs.events.assets import webhook_deliveries
from pipelines.defs.events.automation import build_events_automation, events_job
from pipelines.defs.partitions import usage_days, vendor_days
from pipelines.defs.resources import build_resources
from pipelines.defs.serving.assets import publish_job, serving_copy
from pipelines.defs.serving.budgets import budgets_within_their_amounts
from pipelines.defs.snapshots.assets import build_snapshot_assets
from pipelines.defs.snapshots.automation import build_snapshot_automation, snapshots_job
from pipelines.defs.snapshots.days import snapshot_days
from pipelines.defs.usage.assets import build_usage_assets
from pipelines.defs.usage.automation import build_usage_automation, usage_daily_job, usage_latest_job
from pipelines.defs.usage.freshness import FRESHNESS_CHECKS, build_freshness_sensor
from pipelines.defs.vendors.assets import build_vendor_assets
from pipelines.defs.vendors.automation import build_vendors_automation, vendors_job

__all__ = ["build_definitions", "defs"]


def build_definitions(settings: Settings, *, start_day: date | None = None) -> dg.Definitions:
    """Everything Dagster runs, configured by `settings`; partitions start at `start_day`
    (default: the settings' first day, counted from today in UTC).

    Raises ConfigError when a secret of `settings` is not in the process environment under its
    variable: Dagster resolves secrets there at run time and never stores their values.
    """
    start = start_day or settings.start_day(today=utc_today())
    automation = Automation(running=settings.automation, trailing_days=settings.trailing_days)
    usage_schedules, usage_sensors = build_usage_automation(automation)
    return dg.Definitions(
        assets=[
            *build_usage_assets(usage_days(start=start)),
            *build_snapshot_assets(snapshot_days),
            webhook_deliveries,
            billing_usage,
            billing_state,
            billing_exports,
            *build_vendor_assets(vendor_days(start=start)),
            serving_copy,
        ],
        asset_checks=[warehouse_audit, *FRESHNESS_CHECKS, budgets_within_their_amounts],
        jobs=[
            usage_daily_job,
            usage_latest_job,
            snapshots_job,
            events_job,
            audit_job,
            publish_job,
            billing_job,
            vendors_job,
        ],
        schedules=[
            *usage_schedules,
            build_snapshot_automation(automation),
            build_audit_automation(automation),
            build_billing_automation(automation),
            build_vendors_automation(automation),
        ],
        sensors=[
            *usage_sensors,
            *build_events_automation(automation),
            build_freshness_sensor(automation),
            *build_alert_sensors(settings.alerts, scopes=settings.scopes, automation=automation),
        ],
        resources=build_resources(settings),
    )


@dg.definitions
def defs() -> dg.Definitions:
    """The definitions of the process environment (and `.env`), built when Dagster loads them."""
    # Dagster's code servers and run workers load this: their runs start threads too.
    bound_malloc()
    return build_definitions(Settings.from_env())
