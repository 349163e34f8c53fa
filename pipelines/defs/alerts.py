"""Alerts from Dagster's record, for the daemon's runs (sensors) and the command line's (runs.py):
a failed run, a blocking check that held back a publish, and a warning check (Dagster's
freshness check among them) that turned on or cleared.

A warning alerts on a change only: an evaluation is compared with the one before it in the
instance, whoever made that one, so a warning that stays on is told once. A run made by a
`metrics-etl` process that alerts itself carries ALERTED_BY_PROCESS, and the sensors leave it to
that process; each alert is therefore sent by one of them, once.

An alert that did not arrive is kept in the outbox beside the instance (`outbox_of`), shared by
the command line and the daemon: each warning sensor tick, each command and each new alert
tries it again.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path

import dagster as dg
from dagster._core.definitions.assets.graph.asset_graph import AssetGraph
from dagster._core.storage.asset_check_execution_record import (
    AssetCheckExecutionRecord,
    AssetCheckExecutionRecordStatus,
)

from pipelines.alerts import (
    OUTBOX_NAME,
    Alert,
    AlertConfig,
    Outbox,
    check_changed,
    deliver,
    publish_held,
    retry_kept,
    run_failed,
    stale,
)
from pipelines.defs._automation import Automation
from pipelines.defs.failures import RUN_MEMORY_ADVICE, failed_blocking_checks, failure_cause
from pipelines.defs.usage.freshness import FRESHNESS_CHECKS

__all__ = ["ALERTED_BY_PROCESS", "build_alert_sensors", "outbox_of", "run_alert", "warning_alerts", "warning_checks"]

ALERTED_BY_PROCESS = "metrics-etl/alerted-by-process"
_COMPLETED = {AssetCheckExecutionRecordStatus.SUCCEEDED, AssetCheckExecutionRecordStatus.FAILED}
_HISTORY = 50  # evaluations of one check read per look: far more than run between two sensor ticks
_FRESHNESS = frozenset(key for checks in FRESHNESS_CHECKS for key in checks.check_keys)
_PARTITION = re.compile(r"partition (\S+?)[ ,.]")

Scopes = Sequence[tuple[str, str]]


def _days(tags: Mapping[str, str]) -> str | None:
    if "dagster/partition" in tags:
        return tags["dagster/partition"]
    start, end = tags.get("dagster/asset_partition_range_start"), tags.get("dagster/asset_partition_range_end")
    return (start if start == end else f"{start} .. {end}") if start and end else None


def outbox_of(instance: dg.DagsterInstance) -> Outbox:
    """The alerts not delivered yet, beside the instance every process of a home shares."""
    return Outbox(Path(instance.root_directory) / OUTBOX_NAME)


def run_alert(
    run: dg.DagsterRun,
    events: Sequence[dg.DagsterEvent],
    *,
    log: str,
    scopes: Scopes,
    alerts: AlertConfig,
    memory_advice: str = RUN_MEMORY_ADVICE,
) -> Alert:
    """The alert of a failed run: a publish held back by blocking checks, or the failure's cause."""
    link = alerts.run_url(run.run_id)
    days = _days(run.tags)
    checks = failed_blocking_checks(events)
    if checks:
        return publish_held(job=run.job_name, days=days, checks=checks, log=log, scopes=scopes, link=link)
    cause = failure_cause(events, memory_advice=memory_advice)
    return run_failed(job=run.job_name, days=days, cause=cause, log=log, scopes=scopes, link=link)


def warning_checks(graph: AssetGraph) -> list[dg.AssetCheckKey]:
    """The non-blocking checks of an asset graph: a failure warns, and holds nothing back."""
    return sorted((key for key in graph.asset_check_keys if not graph.get(key).blocking), key=str)


def warning_alerts(
    instance: dg.DagsterInstance,
    checks: Iterable[dg.AssetCheckKey],
    *,
    new: Callable[[AssetCheckExecutionRecord], bool],
    scopes: Scopes,
    alerts: AlertConfig,
) -> tuple[list[Alert], int]:
    """Alerts of the checks whose newest `new` evaluation differs from the one before the first
    `new` one; and the newest evaluation id seen (a sensor's cursor)."""
    found: list[Alert] = []
    newest = 0
    for key in checks:
        history = instance.event_log_storage.get_asset_check_execution_history(key, limit=_HISTORY, status=_COMPLETED)
        newest = max([newest, *(record.id for record in history)])
        mine = [record for record in history if new(record)]
        if not mine:
            continue
        first = min(record.id for record in mine)
        after = max(mine, key=lambda record: record.id)
        before = max((record for record in history if record.id < first), key=lambda r: r.id, default=None)
        was_on = before is not None and before.status == AssetCheckExecutionRecordStatus.FAILED
        is_on = after.status == AssetCheckExecutionRecordStatus.FAILED
        if was_on != is_on:
            found.append(_check_alert(key, after, on=is_on, scopes=scopes, alerts=alerts))
    return found, newest


def _check_alert(
    key: dg.AssetCheckKey, record: AssetCheckExecutionRecord, *, on: bool, scopes: Scopes, alerts: AlertConfig
) -> Alert:
    evaluation = record.event.asset_check_evaluation if record.event is not None else None
    link = alerts.run_url(record.run_id)
    asset = key.asset_key.to_user_string()
    if key in _FRESHNESS:
        day = _PARTITION.search(evaluation.description or "") if evaluation is not None else None
        return stale(asset=asset, day=day.group(1) if day else None, on=on, scopes=scopes, link=link)
    detail = evaluation.metadata.get("detail") if evaluation is not None else None
    text = str(detail.value) if detail is not None and detail.value else ""
    return check_changed(check=key.name, asset=asset, on=on, detail=text, scopes=scopes, link=link)


def build_alert_sensors(alerts: AlertConfig, *, scopes: Scopes, automation: Automation) -> list[dg.SensorDefinition]:
    """The two alert sensors of the daemon, on or off by default as `automation` says; with no
    target (METRICS_ALERTS unset) each tick skips."""
    no_target = "METRICS_ALERTS names no target"

    @dg.run_failure_sensor(
        name="run_failure_alert_sensor",
        minimum_interval_seconds=30,
        default_status=automation.sensor_status,
        description="Every 30 seconds: a failed run (or a publish a blocking check held back) is sent to "
        "METRICS_ALERTS, once.",
    )
    def run_failure_alert_sensor(context: dg.RunFailureSensorContext) -> dg.SkipReason | None:
        run = context.dagster_run
        if not alerts.targets:
            return dg.SkipReason(no_target)
        if ALERTED_BY_PROCESS in run.tags:
            return dg.SkipReason(f"run {run.run_id}: the metrics-etl process that made it sent its alert")
        events = [entry.dagster_event for entry in context.instance.all_logs(run.run_id) if entry.dagster_event]
        where = f"full log: run {run.run_id} in Dagster's UI (Runs)"
        alert = run_alert(run, events, log=where, scopes=scopes, alerts=alerts)
        deliver(alerts, alert, outbox=outbox_of(context.instance))
        return None

    @dg.sensor(
        name="warning_alert_sensor",
        minimum_interval_seconds=60,
        default_status=automation.sensor_status,
        description="Every minute: a warning check (freshness, provisional days, reconciliation, drift) that "
        "turned on or cleared is sent to METRICS_ALERTS, once each way; alerts not delivered before are tried "
        "again.",
    )
    def warning_alert_sensor(context: dg.SensorEvaluationContext) -> dg.SensorResult | dg.SkipReason:
        """The cursor is the newest check evaluation already looked at; a first tick starts from now."""
        if not alerts.targets:
            return dg.SkipReason(no_target)
        outbox = outbox_of(context.instance)
        retry_kept(alerts, outbox)
        assert context.repository_def is not None  # a sensor of a repository is evaluated with it
        after = int(context.cursor) if context.cursor else None
        runs: dict[str, bool] = {}

        def new(record: AssetCheckExecutionRecord) -> bool:
            if after is None or record.id <= after:
                return False
            if record.run_id not in runs:
                run = context.instance.get_run_by_id(record.run_id)
                runs[record.run_id] = run is not None and ALERTED_BY_PROCESS in run.tags
            return not runs[record.run_id]

        found, newest = warning_alerts(
            context.instance,
            warning_checks(context.repository_def.asset_graph),
            new=new,
            scopes=scopes,
            alerts=alerts,
        )
        for alert in found:
            deliver(alerts, alert, outbox=outbox)
        cursor = str(max(newest, after or 0))
        if not found:
            return dg.SensorResult(skip_reason="no warning check turned on or cleared", cursor=cursor)
        return dg.SensorResult(cursor=cursor)

    return [run_failure_alert_sensor, warning_alert_sensor]
