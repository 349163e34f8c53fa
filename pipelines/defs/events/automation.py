"""Sensors: load new spool records, then refresh the snapshot of the repositories they name."""

import hashlib
from datetime import datetime

import dagster as dg

from pipelines._clock import utc_today
from pipelines.defs._automation import Automation
from pipelines.defs.events.assets import DELIVERIES, LOADED_SINCE
from pipelines.defs.resources import StorageResource
from pipelines.defs.serving.assets import PUBLISH_JOB, SERVING, publish_job
from pipelines.defs.snapshots.assets import refresh_run_config
from pipelines.defs.snapshots.automation import SNAPSHOT_JOB, snapshots_job
from pipelines.defs.snapshots.days import add_snapshot_day
from pipelines.webhooks.segments import segments

EVENTS_JOB = "webhook_events_job"

_LOADS_PER_TICK = 1000  # loads one refresh covers; any beyond wait for the next tick

# The job publishes for `metrics-etl webhooks load`, which promises a current serving database
# with no daemon running. The spool sensor's runs select the load alone: the refresh sensor's one
# run after them publishes (snapshots_job after a refresh, serving_publish_job otherwise), so one
# burst of deliveries is one publish, never one per job it passes through.
events_job = dg.define_asset_job(
    EVENTS_JOB,
    selection=dg.AssetSelection.assets(DELIVERIES, SERVING),
    description="Load new webhook deliveries from the spool.",
)


def build_events_automation(automation: Automation) -> list[dg.SensorDefinition]:
    """The spool and refresh sensors, on or off by default as `automation` says."""

    @dg.sensor(
        job=events_job,
        minimum_interval_seconds=30,
        default_status=automation.sensor_status,
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
        return dg.SensorResult(
            run_requests=[dg.RunRequest(run_key=fingerprint, asset_selection=[DELIVERIES])], cursor=fingerprint
        )

    @dg.sensor(
        jobs=[snapshots_job, publish_job],
        minimum_interval_seconds=30,
        default_status=automation.sensor_status,
        description="After deliveries land: the repositories they name are taken again in today's snapshot, "
        "then published; when they name none, published alone. One run for all loads since the last tick.",
    )
    def snapshot_refresh_sensor(context: dg.SensorEvaluationContext) -> dg.SensorResult:
        """One run for every load since the last tick, and the publish its loads left to it.

        A refresh (snapshots_job) when the loads named repositories: only those are taken again,
        read from the warehouse by when the loads began (a repository's name may be a login, so
        Dagster holds only the instant and the count); snapshots_job publishes. Otherwise the
        publish alone, unless one ran since the newest load (a `webhooks load` publishes its own).
        """
        instance = context.instance
        if context.cursor is None:  # the newest load alone, as a sensor started today sees it
            loads = instance.fetch_materializations(DELIVERIES, limit=1).records
        else:
            after = dg.AssetRecordsFilter(asset_key=DELIVERIES, after_storage_id=int(context.cursor))
            loads = instance.fetch_materializations(after, limit=_LOADS_PER_TICK, ascending=True).records
        if not loads:  # from now on, every load counts
            return dg.SensorResult(skip_reason="no deliveries loaded since the last tick", cursor=context.cursor or "0")
        newest = max(load.storage_id for load in loads)
        cursor = str(newest)
        naming = [metadata for metadata in map(_metadata, loads) if metadata.get("repositories")]
        if naming:
            today = utc_today()
            add_snapshot_day(instance, today)
            instants = [since for metadata in naming if isinstance(since := metadata.get(LOADED_SINCE), str)]
            # A load recorded before loads told their instant: the whole day is taken again.
            config = (
                refresh_run_config(min(instants, key=datetime.fromisoformat)) if len(instants) == len(naming) else {}
            )
            return dg.SensorResult(
                cursor=cursor,
                run_requests=[
                    dg.RunRequest(
                        run_key=f"refresh-{cursor}",
                        job_name=SNAPSHOT_JOB,
                        partition_key=today.isoformat(),
                        run_config=config,
                    )
                ],
            )
        published = dg.AssetRecordsFilter(asset_key=SERVING, after_storage_id=newest)
        if instance.fetch_materializations(published, limit=1).records:
            return dg.SensorResult(skip_reason="the loads named no repository and were published since", cursor=cursor)
        return dg.SensorResult(
            cursor=cursor, run_requests=[dg.RunRequest(run_key=f"publish-{cursor}", job_name=PUBLISH_JOB)]
        )

    return [webhook_spool_sensor, snapshot_refresh_sensor]


def _metadata(load: dg.EventLogRecord) -> dict[str, object]:
    """A load's counts and instant, as its materialization recorded them."""
    materialization = load.asset_materialization
    entries = materialization.metadata.items() if materialization else ()
    return {name: entry.value for name, entry in entries}
