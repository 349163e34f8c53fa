"""Sensors: load new spool records, then refresh the snapshot of the repositories they name."""

import hashlib
import json
from dataclasses import asdict, dataclass
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
        "then published; when they name none, published alone. One run for all loads since the last tick; "
        "a refresh that failed is asked again.",
    )
    def snapshot_refresh_sensor(context: dg.SensorEvaluationContext) -> dg.SensorResult:
        """One run for every load since the last tick, and the publish its loads left to it.

        A refresh (snapshots_job) when the loads named repositories: only those are taken again,
        read from the warehouse by when the loads began (a repository's name may be a login, so
        Dagster holds only the instant and the count); snapshots_job publishes. Otherwise the
        publish alone, unless one ran since the newest load (a `webhooks load` publishes its own).
        A refresh asked for stays in the cursor until its run succeeds: while it is under way the
        sensor waits, and once it failed its loads are refreshed again with any newer ones.
        """
        instance = context.instance
        state = _RefreshState.read(context.cursor)
        again: _Pending | None = None
        if state.pending is not None:
            status = _refresh_status(instance, state.pending)
            if status is None:
                return dg.SensorResult(skip_reason="the refresh asked for is not finished", cursor=context.cursor)
            again = None if status == dg.DagsterRunStatus.SUCCESS else state.pending
        if state.after is None:  # the newest load alone, as a sensor started today sees it
            loads = instance.fetch_materializations(DELIVERIES, limit=1).records
        else:
            after = dg.AssetRecordsFilter(asset_key=DELIVERIES, after_storage_id=state.after)
            loads = instance.fetch_materializations(after, limit=_LOADS_PER_TICK, ascending=True).records
        if not loads and again is None:  # from now on, every load counts
            cursor = _RefreshState(state.after or 0, None).write()
            return dg.SensorResult(skip_reason="no deliveries loaded since the last tick", cursor=cursor)
        newest = max((load.storage_id for load in loads), default=state.after or 0)
        naming = [metadata for metadata in map(_metadata, loads) if metadata.get("repositories")]
        if naming or again is not None:
            # Deliveries loaded since the earliest instant: the failed refresh's and the new loads'.
            # A load recorded before loads told their instant: the whole day is taken again.
            instants = [since for metadata in naming if isinstance(since := metadata.get(LOADED_SINCE), str)]
            whole_day = len(instants) < len(naming) or (again is not None and again.since is None)
            if again is not None and again.since is not None:
                instants.append(again.since)
            since = None if whole_day else min(instants, key=datetime.fromisoformat)
            pending = _Pending(
                key=f"refresh-{newest}" if again is None else f"refresh-{newest}-again-{again.attempt + 1}",
                since=since,
                attempt=0 if again is None else again.attempt + 1,
            )
            today = utc_today()
            add_snapshot_day(instance, today)
            return dg.SensorResult(
                cursor=_RefreshState(newest, pending).write(),
                run_requests=[
                    dg.RunRequest(
                        run_key=pending.key,
                        job_name=SNAPSHOT_JOB,
                        partition_key=today.isoformat(),
                        run_config=refresh_run_config(since) if since is not None else {},
                        tags={_REFRESH_TAG: pending.key},
                    )
                ],
            )
        cursor = _RefreshState(newest, None).write()
        published = dg.AssetRecordsFilter(asset_key=SERVING, after_storage_id=newest)
        if instance.fetch_materializations(published, limit=1).records:
            return dg.SensorResult(skip_reason="the loads named no repository and were published since", cursor=cursor)
        return dg.SensorResult(
            cursor=cursor, run_requests=[dg.RunRequest(run_key=f"publish-{newest}", job_name=PUBLISH_JOB)]
        )

    return [webhook_spool_sensor, snapshot_refresh_sensor]


# The tag naming a refresh's run by its run key, which the sensor finds it by (the daemon's own
# run-key tag is not on a run launched from the UI or a test's request).
_REFRESH_TAG = "metrics-etl/refresh"


@dataclass(frozen=True)
class _Pending:
    """A refresh asked for and not yet known to have succeeded: its run key, the instant its
    deliveries were loaded since (None: the whole day), and how many times it was asked again."""

    key: str
    since: str | None
    attempt: int = 0


@dataclass(frozen=True)
class _RefreshState:
    """The refresh sensor's cursor: the newest load it has seen (a storage id; None before the
    first tick) and the refresh it waits for. Written as JSON; a bare storage id is the form
    cursors had before refreshes were retried."""

    after: int | None
    pending: _Pending | None

    @classmethod
    def read(cls, cursor: str | None) -> "_RefreshState":
        if cursor is None:
            return cls(None, None)
        if not cursor.startswith("{"):
            return cls(int(cursor), None)
        data = json.loads(cursor)
        pending = data.get("pending")
        return cls(data["after"], _Pending(**pending) if pending else None)

    def write(self) -> str:
        return json.dumps({"after": self.after, "pending": asdict(self.pending) if self.pending else None})


def _refresh_status(instance: dg.DagsterInstance, pending: _Pending) -> dg.DagsterRunStatus | None:
    """How the newest run of the refresh ended; None while it is queued or running. A run that
    cannot be found (deleted, or never launched) counts as failed: its loads are refreshed again."""
    runs = instance.get_runs(filters=dg.RunsFilter(tags={_REFRESH_TAG: pending.key}), limit=1)
    if not runs:
        return dg.DagsterRunStatus.FAILURE
    return runs[0].status if runs[0].is_finished else None


def _metadata(load: dg.EventLogRecord) -> dict[str, object]:
    """A load's counts and instant, as its materialization recorded them."""
    materialization = load.asset_materialization
    entries = materialization.metadata.items() if materialization else ()
    return {name: entry.value for name, entry in entries}
