"""Runs the Dagster jobs in-process for `metrics-etl run`, `demo` and `webhooks load`, with progress.

The summary a person reads after it is on the read side: pipelines/bi/summary.py; the full log
of its runs, pipelines/run_log.py.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from datetime import date, timedelta
from typing import TYPE_CHECKING, Any, TextIO

import dagster as dg

from pipelines._clock import utc_today
from pipelines._words import counted
from pipelines.alerts import deliver, retry_kept
from pipelines.defs.alerts import ALERTED_BY_PROCESS, outbox_of, run_alert, warning_alerts, warning_checks
from pipelines.defs.billing.not_read import NOT_READ, not_read_lines
from pipelines.defs.failures import RUN_MEMORY_ADVICE, failure_cause
from pipelines.defs.serving.assets import SERVING
from pipelines.defs.snapshots.days import add_snapshot_day
from pipelines.instance import execute_in_code_location, open_instance, process_tags, release_orphaned_runs
from pipelines.run_log import RunLog

if TYPE_CHECKING:
    from pipelines.config import Settings

_CHUNK_DAYS = 7  # one run per week of days: progress to show, and a failure costs one week


# Progress lines and the one-line failure are ours; Dagster keeps its log in the run history.
_QUIET = {"loggers": {"console": {"config": {"log_level": "CRITICAL"}}}}


class _Progress(logging.Handler):
    """Our own warnings during a run (e.g. waiting for the warehouse or for the rate limit), each
    on a line of its own under the run's progress line, which is written again once they are done."""

    def __init__(self, out: TextIO) -> None:
        super().__init__(logging.WARNING)
        self.out = out
        self.interrupted = False

    def emit(self, record: logging.LogRecord) -> None:
        # The first line ends the open progress line; each line is whole once written.
        self.out.write(("" if self.interrupted else "\n") + f"    {record.getMessage()}\n")
        self.out.flush()
        self.interrupted = True


@contextmanager
def _progress(out: TextIO) -> Iterator[_Progress]:
    handler = _Progress(out)
    logger = logging.getLogger("pipelines")
    logger.addHandler(handler)
    try:
        yield handler
    finally:
        logger.removeHandler(handler)


class RunFailed(Exception):
    """A job run failed; the message names the run, the step and the error."""


@dataclass(frozen=True)
class RunPlan:
    first_day: date
    last_day: date  # before first_day: no daily reports (e.g. only today was asked for)
    latest_28_day: bool = True
    snapshots: bool = True
    billing: bool = True  # the billed usage of the months from first_day's (docs/billing.md)
    refetch_billing: bool = False  # and of the closed months too (and the vendors' final days)
    vendors: bool = True  # the vendors' usage from first_day to today, and their state (docs/vendors.md)


class _Alerting:
    """This process's own alerts (docs/operations.md, Alerts): each failed run as it ends, then the
    warning checks its runs turned on or cleared, once for the whole command (a backfill's early
    weeks find the newest day missing; only where the command left things is told). Alerts an
    earlier command or tick could not deliver are tried again first."""

    def __init__(self, settings: Settings, instance: dg.DagsterInstance) -> None:
        self.config, self.scopes, self.instance = settings.alerts, settings.scopes, instance
        self.run_ids: set[str] = set()
        self.outbox = outbox_of(instance)
        if self.config.targets:
            retry_kept(self.config, self.outbox)

    @property
    def tags(self) -> dict[str, str]:
        # The daemon's alert sensors leave these runs to this process.
        return {ALERTED_BY_PROCESS: "true"} if self.config.targets else {}

    def run_ended(self, result: dg.ExecuteInProcessResult, *, where: str, memory_advice: str) -> None:
        self.run_ids.add(result.run_id)
        run = self.instance.get_run_by_id(result.run_id)
        if result.success or not self.config.targets or run is None:
            return
        alert = run_alert(
            run, result.all_events, log=where, scopes=self.scopes, alerts=self.config, memory_advice=memory_advice
        )
        deliver(self.config, alert, outbox=self.outbox)

    def command_ended(self, defs: dg.Definitions) -> None:
        if not self.config.targets or not self.run_ids:
            return
        found, _ = warning_alerts(
            self.instance,
            warning_checks(defs.resolve_asset_graph()),
            new=lambda record: record.run_id in self.run_ids,
            scopes=self.scopes,
            alerts=self.config,
        )
        for alert in found:
            deliver(self.config, alert, outbox=self.outbox)


def _notes(result: dg.ExecuteInProcessResult) -> list[str]:
    """Lines the assets asked to show, e.g. which scopes had no report for a day; a scope whose
    billing the token could not read, once for all the billing assets that found it so."""
    notes: list[str] = []
    refused: list[object] = []
    for event in result.all_events:
        if event.event_type_value != "ASSET_MATERIALIZATION":
            continue
        for key in ("not_available", "warnings", NOT_READ):
            value = event.materialization.metadata.get(key)
            lines = value.value if value is not None else None
            if isinstance(lines, list) and key == NOT_READ:
                refused += lines
            elif isinstance(lines, list):
                notes += [line for line in lines if isinstance(line, str) and line not in notes]
    return notes + not_read_lines(refused)


@dataclass(frozen=True)
class _Runner:
    """One command's runs: where they are kept, logged and alerted, and where progress goes."""

    instance: dg.DagsterInstance
    out: TextIO
    log: RunLog
    alerting: _Alerting

    def execute(
        self, job: dg.JobDefinition, *, label: str, memory_advice: str = RUN_MEMORY_ADVICE, **kwargs: Any
    ) -> dg.ExecuteInProcessResult:
        """Run `job` once with a progress line; RunFailed (one line) when it fails."""
        out, started = self.out, time.monotonic()
        out.write(f"  {label} … ")
        out.flush()
        tags = process_tags() | self.alerting.tags | kwargs.pop("tags", {})
        run_config = _QUIET | {"ops": kwargs.pop("ops", {})}
        with _progress(out) as progress:
            result = execute_in_code_location(job, instance=self.instance, run_config=run_config, tags=tags, **kwargs)
        if progress.interrupted:
            out.write(f"  {label} … ")
        self.log.write(label, result, self.instance)
        where = f"run {result.run_id}; {self.log.where()}"
        self.alerting.run_ended(result, where=where, memory_advice=memory_advice)
        if not result.success:
            out.write("failed\n")
            raise RunFailed(f"{label}: {failure_cause(result.all_events, memory_advice=memory_advice)} ({where})")
        out.write(f"ok ({time.monotonic() - started:.1f}s)\n")
        for note in _notes(result):
            out.write(f"    {note}\n")
        return result


def _release(instance: dg.DagsterInstance, out: TextIO) -> None:
    """Runs left STARTED by a killed process hold the rate-limit pool's slot: free them first."""
    for line in release_orphaned_runs(instance):
        out.write(f"{line}\n")


def run_plan(plan: RunPlan, *, settings: Settings, start_day: date, out: TextIO) -> None:
    """Materialize the plan's days (a week per run), the latest 28-day report and today's snapshot.

    `start_day` is the first daily partition: on or before `plan.first_day`.
    """
    from pipelines.definitions import build_definitions

    defs = build_definitions(settings, start_day=start_day)
    configured, skipped = settings.vendor_configs()
    if plan.vendors and not configured:  # no vendor's key set: each skipped in a line, no run
        out.write("".join(f"vendors: {line}\n" for line in skipped))
        plan = replace(plan, vendors=False)
    # The instance the UI and the daemon read: every run made here is in their history.
    with open_instance(settings) as instance:
        _release(instance, out)
        alerting = _Alerting(settings, instance)
        try:
            _run_plan(plan, defs=defs, runner=_Runner(instance, out, RunLog(settings.logs_dir), alerting))
        finally:
            alerting.command_ended(defs)


def _run_plan(plan: RunPlan, *, defs: dg.Definitions, runner: _Runner) -> None:
    out = runner.out
    daily = defs.resolve_job_def("usage_daily_job")
    day_count = (plan.last_day - plan.first_day).days + 1
    if day_count > 0:
        out.write(f"usage reports, {plan.first_day} to {plan.last_day} ({counted(day_count, 'day')})\n")
    # The lake and serving database are published once, by the last week: a backfill writes
    # each changed partition once, not the whole lake's marks week after week.
    landing_only = [key for key in daily.asset_layer.executable_asset_keys if key != SERVING]
    chunk_start = plan.first_day
    while chunk_start <= plan.last_day:
        chunk_end = min(chunk_start + timedelta(days=_CHUNK_DAYS - 1), plan.last_day)
        runner.execute(
            daily,
            label=f"{chunk_start} .. {chunk_end}",
            asset_selection=None if chunk_end == plan.last_day else landing_only,
            tags={
                "dagster/asset_partition_range_start": chunk_start.isoformat(),
                "dagster/asset_partition_range_end": chunk_end.isoformat(),
            },
        )
        chunk_start = chunk_end + timedelta(days=1)
    if plan.latest_28_day:
        out.write("latest 28-day reports\n")
        runner.execute(defs.resolve_job_def("usage_latest_job"), label="latest")
    if plan.snapshots:
        out.write("repository, issue and member snapshot\n")
        today = utc_today()
        add_snapshot_day(runner.instance, today)
        runner.execute(
            defs.resolve_job_def("snapshots_job"),
            label=f"snapshot {today}",
            partition_key=today.isoformat(),
        )
    if plan.billing:
        out.write(f"billed usage of the months from {plan.first_day:%Y-%m}\n")
        billing = {"refetch": plan.refetch_billing, "since": plan.first_day.isoformat()}
        runner.execute(
            defs.resolve_job_def("billing_job"),
            label="billing",
            ops={op: {"config": billing} for op in ("billing_usage", "billing_exports")},
        )
    if plan.vendors:
        today = utc_today()
        out.write(f"vendors' own usage, {plan.first_day} to {today}\n")
        runner.execute(
            defs.resolve_job_def("vendors_job"),
            label="vendors",
            ops={"vendor_usage": {"config": {"refetch": plan.refetch_billing}}},
            tags={
                "dagster/asset_partition_range_start": plan.first_day.isoformat(),
                "dagster/asset_partition_range_end": today.isoformat(),
            },
        )


def run_job(
    job_name: str,
    *,
    settings: Settings,
    out: TextIO,
    ops: dict[str, Any] | None = None,
    memory_advice: str = RUN_MEMORY_ADVICE,
) -> dg.ExecuteInProcessResult:
    """Run one job of the definitions once, unpartitioned, with a progress line; its result.

    `ops` is the run config's ops section (an asset's config); `memory_advice` what the failure
    line says to do when DuckDB runs out of memory. Raises RunFailed as `run_plan` does; the run
    is kept where `run_plan` keeps its runs.
    """
    from pipelines.definitions import build_definitions

    defs = build_definitions(settings)
    job = defs.resolve_job_def(job_name)
    with open_instance(settings) as instance:
        _release(instance, out)
        alerting = _Alerting(settings, instance)
        try:
            runner = _Runner(instance, out, RunLog(settings.logs_dir), alerting)
            return runner.execute(job, label=job_name, ops=ops or {}, memory_advice=memory_advice)
        finally:
            alerting.command_ended(defs)
