"""The audit: every usage check over the whole history, a job of its own (weekly).

A daily run checks only the slices it wrote; whatever could still go wrong across slices (a
bug that slipped past them, a hand edit) is found here, without any daily run paying for it.
"""

from collections.abc import Iterator
from datetime import datetime, timezone

import dagster as dg
from dagster_duckdb import DuckDBResource

from pipelines.defs.checks import USAGE_RUN_CHECKS, evaluate, report_check_results, report_spec
from pipelines.warehouse import migrate
from pipelines.warehouse.sql import run_sql
from pipelines.warehouse.checks import REPORT_CHECKS, WHOLE_HISTORY, run_checks

AUDIT_PREFIX = "whole_history_"
# The run checks the audit repeats over everything (the quarantine: every line still open).
_AUDIT_RUN_CHECKS = tuple(c for c in USAGE_RUN_CHECKS if c.name in ("quarantine_is_empty", "days_without_agent_array"))
_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)


@dg.multi_asset_check(
    name="warehouse_audit",
    # Nothing runs downstream of the audit: a failure is reported, never blocking.
    specs=[report_spec(check, prefix=AUDIT_PREFIX, blocking=False) for check in REPORT_CHECKS]
    + [
        dg.AssetCheckSpec(AUDIT_PREFIX + check.name, asset=dg.AssetKey(list(check.asset)), description=check.description)
        for check in _AUDIT_RUN_CHECKS
    ],
    description="Every usage check over the whole history: a full scan, run on its own (weekly), never by a daily run.",
)
def warehouse_audit(warehouse: DuckDBResource) -> Iterator[dg.AssetCheckResult]:
    with warehouse.get_connection() as conn:
        migrate(conn)
        # A full scan gets more memory than a daily run's slice, and spills past it.
        run_sql(conn, "checks/limit_audit.sql")
        yield from report_check_results(
            run_checks(conn, REPORT_CHECKS, where="whole history", **WHOLE_HISTORY), prefix=AUDIT_PREFIX
        )
        yield from evaluate(conn, _AUDIT_RUN_CHECKS, prefix=AUDIT_PREFIX, since=_EPOCH, **WHOLE_HISTORY)


AUDIT_JOB = "warehouse_audit_job"
audit_job = dg.define_asset_job(
    AUDIT_JOB,
    selection=dg.AssetSelection.checks(warehouse_audit),
    description="Every usage check over the whole history (full scans; spills to disk past 512 MB).",
)


@dg.schedule(job_name=AUDIT_JOB, cron_schedule="0 3 * * 0", execution_timezone="UTC")
def warehouse_audit_schedule(context: dg.ScheduleEvaluationContext) -> dg.RunRequest:
    """Sunday 03:00 UTC, before the daily runs."""
    return dg.RunRequest(run_key=context.scheduled_execution_time.date().isoformat())
