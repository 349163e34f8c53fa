"""Sensors: load new spool records, then refresh the snapshot of the repositories they name."""

import hashlib

import dagster as dg

from pipelines._clock import utc_today
from pipelines._words import counted
from pipelines.defs._automation import Automation
from pipelines.defs.events.assets import DELIVERIES
from pipelines.defs.resources import StorageResource
from pipelines.defs.snapshots.automation import SNAPSHOT_JOB
from pipelines.defs.snapshots.days import add_snapshot_day
from pipelines.webhooks.segments import segments

EVENTS_JOB = "webhook_events_job"

events_job = dg.define_asset_job(
    EVENTS_JOB,
    selection=dg.AssetSelection.assets(DELIVERIES) | dg.AssetSelection.assets(["serving", "warehouse_copy"]),
    description="Load new webhook deliveries from the spool.",
)


def build_events_automation(automation: Automation) -> list[dg.SensorDefinition]:
    """The spool and refresh sensors, on or off by default as `automation` says."""

    @dg.sensor(
        job=events_job, minimum_interval_seconds=30, default_status=automation.sensor_status,
        description="Every 30 seconds: loads new webhook deliveries when the spool has grown.",
    )
    def webhook_spool_sensor(
        context: dg.SensorEvaluationContext, storage: StorageResource
    ) -> dg.SensorResult | dg.SkipReason:
        """Requests a load when the spool has grown.

        The sensor only looks at segment sizes (it never opens the warehouse); what is loaded is
        decided by the loader's own committed offsets, so a repeated request loads nothing twice.
        """
        sizes = sorted((p.name, p.stat().st_size) for p in segments(storage.spool_path))
        fingerprint = hashlib.sha256(repr(sizes).encode()).hexdigest()[:16]
        if not sizes or fingerprint == context.cursor:
            return dg.SkipReason("no new deliveries in the spool")
        return dg.SensorResult(run_requests=[dg.RunRequest(run_key=fingerprint)], cursor=fingerprint)

    @dg.asset_sensor(
        asset_key=DELIVERIES, job_name=SNAPSHOT_JOB, minimum_interval_seconds=30,
        default_status=automation.sensor_status,
        description="After deliveries naming repositories land: today's snapshot is taken again.",
    )
    def snapshot_refresh_sensor(
        context: dg.SensorEvaluationContext, asset_event: dg.EventLogEntry
    ) -> dg.RunRequest | dg.SkipReason:
        """After deliveries naming repositories land, today's snapshot is taken again.

        The refresh covers the whole day (a day is replaced as a unit); conditional requests make
        the unchanged repositories cost a 304 each.
        """
        materialization = asset_event.asset_materialization
        repositories = materialization.metadata.get("repositories") if materialization else None
        # A count: the refresh takes the whole day, and a repository's name may be a person's login.
        count = repositories.value if isinstance(repositories, dg.IntMetadataValue) else None
        if not count:
            return dg.SkipReason("the loaded deliveries named no repository")
        today = utc_today()
        add_snapshot_day(context.instance, today)
        return dg.RunRequest(
            run_key=f"refresh-{asset_event.run_id}",
            partition_key=today.isoformat(),
            tags={"refresh_for": counted(count, "repository", "repositories")},
        )

    return [webhook_spool_sensor, snapshot_refresh_sensor]
