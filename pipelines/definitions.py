"""The one Definitions object (workspace.yaml and `dagster dev -m pipelines.definitions` load it)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from datetime import datetime, timezone

import dagster as dg

from pipelines._memory import bound_malloc_arenas
from pipelines.config import Settings
from pipelines.defs.audit.checks import audit_job, warehouse_audit, warehouse_audit_schedule
from pipelines.defs.events.assets import webhook_deliveries
from pipelines.defs.events.automation import events_job, snapshot_refresh_sensor, webhook_spool_sensor
from pipelines.defs.partitions import snapshot_days, usage_days
from pipelines.defs.resources import resources_from_env
from pipelines.defs.serving.assets import serving_copy
from pipelines.defs.snapshots.assets import build_snapshot_assets
from pipelines.defs.snapshots.automation import build_snapshot_jobs, snapshots_daily_schedule
from pipelines.defs.usage.assets import build_usage_assets
from pipelines.defs.usage.automation import (
    build_usage_jobs,
    report_availability_sensor,
    usage_daily_schedule,
    usage_latest_schedule,
)


def build_definitions(environ: Mapping[str, str] | None = None) -> dg.Definitions:
    """Everything Dagster runs, configured from `environ` (default: the process environment)."""
    environ = os.environ if environ is None else environ
    today = datetime.now(timezone.utc).date()
    start = Settings.from_env(environ=environ).start_day(today=today)
    usage_partitions = usage_days(start=start)
    snapshot_partitions = snapshot_days(start=start)
    return dg.Definitions(
        assets=[
            *build_usage_assets(usage_partitions),
            *build_snapshot_assets(snapshot_partitions),
            webhook_deliveries,
            serving_copy,
        ],
        asset_checks=[warehouse_audit],
        jobs=[*build_usage_jobs(), *build_snapshot_jobs(), events_job, audit_job],
        schedules=[usage_daily_schedule, usage_latest_schedule, snapshots_daily_schedule, warehouse_audit_schedule],
        sensors=[report_availability_sensor, webhook_spool_sensor, snapshot_refresh_sensor],
        resources=resources_from_env(environ),
    )


# Dagster's code servers and daemon import this module: their runs start threads too.
bound_malloc_arenas()
defs = build_definitions()
