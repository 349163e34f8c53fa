"""The one Definitions object (workspace.yaml and `dagster dev -m pipelines.definitions` load it)."""

from __future__ import annotations

import os
from datetime import UTC, date, datetime
from typing import Any

import dagster as dg
from dagster_duckdb import DuckDBResource

from pipelines._memory import bound_malloc_arenas
from pipelines.config import Settings
from pipelines.defs.audit.checks import audit_job, warehouse_audit, warehouse_audit_schedule
from pipelines.defs.events.assets import webhook_deliveries
from pipelines.defs.events.automation import events_job, snapshot_refresh_sensor, webhook_spool_sensor
from pipelines.defs.partitions import snapshot_days, usage_days
from pipelines.defs.resources import _MEMORY_LIMIT, ServiceResource, StorageResource
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


def build_definitions(settings: Settings | None = None, *, start_day: date | None = None) -> dg.Definitions:
    """Everything Dagster runs, configured by `settings` (default: read from the environment).

    Daily partitions start at `start_day` (default: the settings' start day).
    """
    settings = Settings.from_env() if settings is None else settings
    start = start_day or settings.start_day(today=datetime.now(UTC).date())
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
        resources=_resources(settings),
    )


# Secrets reach Dagster only as the names of their variables: it stores and shows names, never values.
_SECRET_ENV = {
    "token": "SERVICE_TOKEN",
    "app_private_key": "SERVICE_APP_PRIVATE_KEY",
    "app_private_key_path": "SERVICE_APP_PRIVATE_KEY_PATH",
}


def _resources(settings: Settings) -> dict[str, Any]:
    secrets = {field: dg.EnvVar(name) for field, name in _SECRET_ENV.items() if os.environ.get(name)}
    service = ServiceResource(
        base_url=settings.base_url,
        graphql_url=settings.graphql_url,
        oauth_url=settings.oauth_url,
        token_file=str(settings.token_file),
        app_id=settings.app_id,
        installation_id=settings.installation_id,
        org=",".join(settings.orgs) or None,
        enterprise=",".join(settings.enterprises) or None,
        repos=",".join(settings.repos) or None,
        api_version=settings.api_version,
        dialect=settings.dialect,
        rate_limit_max_wait=str(settings.rate_limit_max_wait),
        etag_cache=str(settings.etag_cache) if settings.etag_cache else None,
        **secrets,
    )
    storage = StorageResource(
        raw_dir=str(settings.raw_dir),
        spool_dir=str(settings.webhook_spool_dir),
        serving_path=str(settings.serving_path),
        lake_path=str(settings.lake_path),
    )
    warehouse = DuckDBResource(database=str(settings.warehouse_path), connection_config={"memory_limit": _MEMORY_LIMIT})
    return {"service": service, "storage": storage, "warehouse": warehouse}


# Dagster's code servers and daemon import this module: their runs start threads too.
bound_malloc_arenas()
defs = build_definitions()
