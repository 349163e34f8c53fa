"""Runs the Dagster jobs in-process for `metrics-etl run` and `metrics-etl demo`, with progress."""

from __future__ import annotations

import os
import time
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date, timedelta
from pathlib import Path
from typing import TextIO

import dagster as dg
import duckdb

from pipelines.warehouse._sql import run_sql

_CHUNK_DAYS = 7  # one run per week of days: progress to show, and a failure costs one week


# Progress lines and the one-line failure are ours; Dagster keeps its log in the run history.
_QUIET = {"loggers": {"console": {"config": {"log_level": "CRITICAL"}}}}


class RunFailed(Exception):
    """A job run failed; the message names the run, the step and the error."""


@dataclass(frozen=True)
class RunPlan:
    first_day: date
    last_day: date
    latest_28_day: bool = True
    snapshots: bool = True


def _instance() -> dg.DagsterInstance:
    # With DAGSTER_HOME set, runs appear in `dagster dev`'s history; otherwise they are ephemeral.
    return dg.DagsterInstance.get() if os.environ.get("DAGSTER_HOME") else dg.DagsterInstance.ephemeral()


def _failed_checks(result: dg.ExecuteInProcessResult) -> str:
    """Failed blocking checks with their counts and details, e.g. which lines were quarantined."""
    failed = []
    for event in result.all_events:
        if event.event_type_value != "ASSET_CHECK_EVALUATION":
            continue
        check = event.asset_check_evaluation_data
        if check.passed or check.severity != dg.AssetCheckSeverity.ERROR:
            continue
        failures = check.metadata.get("failures")
        detail = check.metadata.get("detail")
        text = f"check {check.check_name} on {check.asset_key.to_user_string()}"
        if failures is not None:
            text += f" found {failures.value}"
        if detail is not None and detail.value:
            text += f" ({str(detail.value)[:300]})"
        failed.append(text)
    return "; ".join(failed)


def _failure(result: dg.ExecuteInProcessResult) -> str:
    checks = _failed_checks(result)
    for event in result.all_events:
        if event.event_type_value == "STEP_FAILURE":
            error = event.step_failure_data.error
            cause = error.cause.message if error and error.cause else (error.message if error else "")
            reason = checks or (cause.strip().splitlines()[-1] if cause else "failed")
            return f"step {event.step_key}: {reason}"
    return checks or "run failed"


def _execute(job: dg.JobDefinition, *, instance: dg.DagsterInstance, out: TextIO, label: str, **kwargs) -> None:
    started = time.monotonic()
    out.write(f"  {label} … ")
    out.flush()
    result = job.execute_in_process(instance=instance, raise_on_error=False, run_config=_QUIET, **kwargs)
    if not result.success:
        out.write("failed\n")
        raise RunFailed(f"{label}: {_failure(result)} (run {result.run_id})")
    out.write(f"ok ({time.monotonic() - started:.1f}s)\n")


def run_plan(plan: RunPlan, *, environ: Mapping[str, str] | None = None, out: TextIO) -> None:
    """Materialize the plan's days (a week per run), the latest 28-day report and today's snapshot."""
    from pipelines.definitions import build_definitions

    defs = build_definitions(environ)
    instance = _instance()
    daily = defs.resolve_job_def("usage_daily_job")
    day_count = (plan.last_day - plan.first_day).days + 1
    out.write(f"usage reports, {plan.first_day} to {plan.last_day} ({day_count} days)\n")
    chunk_start = plan.first_day
    while chunk_start <= plan.last_day:
        chunk_end = min(chunk_start + timedelta(days=_CHUNK_DAYS - 1), plan.last_day)
        _execute(
            daily, instance=instance, out=out, label=f"{chunk_start} .. {chunk_end}",
            tags={
                "dagster/asset_partition_range_start": chunk_start.isoformat(),
                "dagster/asset_partition_range_end": chunk_end.isoformat(),
            },
        )
        chunk_start = chunk_end + timedelta(days=1)
    if plan.latest_28_day:
        out.write("latest 28-day reports\n")
        _execute(defs.resolve_job_def("usage_latest_job"), instance=instance, out=out, label="latest")
    if plan.snapshots:
        out.write("repository, issue and member snapshot\n")
        _execute(
            defs.resolve_job_def("snapshots_job"), instance=instance, out=out,
            label=f"snapshot {date.today()}", partition_key=date.today().isoformat(),
        )


def summarize(warehouse: Path, *, serving: Path, out: TextIO) -> None:
    """What landed and where: tables with rows, agents with their latest labels."""
    with duckdb.connect(str(warehouse), read_only=True) as conn:
        out.write(f"\nwarehouse: {warehouse.resolve()}\nserving copy for BI tools: {serving.resolve()}\n\n")
        out.write(f"{'table':34} {'rows':>10}\n")
        for schema, table in run_sql(conn, "metadata/select_tables.sql"):
            # Names come from DuckDB's own catalog, quoted; no value is formatted into SQL.
            rows = conn.execute(f'SELECT count(*) FROM "{schema}"."{table}"').fetchone()[0]
            out.write(f"{schema + '.' + table:34} {rows:>10,}\n")
        agents = run_sql(conn, "metadata/select_agent_summary.sql")
        out.write(f"\nthird-party agents ({len(agents)}), by agent_id with the latest label:\n")
        for agent_id, name, first, last, labels, job_starts in agents:
            former = f"  (formerly {labels})" if labels else ""
            out.write(f"  {agent_id:>10}  {name:28} {first} .. {last}  {job_starts:>8,} job starts{former}\n")
