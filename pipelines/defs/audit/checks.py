"""The audit: every usage check over the whole history, a job of its own (weekly).

A daily run checks only the slices it wrote; whatever could still go wrong across slices (a
bug that slipped past them, a hand edit) is found here, without any daily run paying for it.
"""

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import dagster as dg

from pipelines.defs._checks import check_results, check_specs
from pipelines.defs.resources import WarehouseResource
from pipelines.defs.usage.checks import RUN_CHECKS
from pipelines.warehouse import run_sql
from pipelines.warehouse.checks import REPORT_CHECKS, WHOLE_HISTORY, run_checks

AUDIT_PREFIX = "whole_history_"
# The run checks the audit repeats over everything (the quarantine: every line still open).
_RUN_CHECKS = tuple(
    c for c in RUN_CHECKS if c.name in ("quarantine_is_empty", "days_without_agent_array", "reconciliation_holds")
)
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_SQL = Path(__file__).parent / "sql"


@dg.multi_asset_check(
    name="warehouse_audit",
    # Nothing runs downstream of the audit: a failure is reported, never blocking.
    specs=check_specs((*REPORT_CHECKS, *_RUN_CHECKS), prefix=AUDIT_PREFIX, blocking=False),
    description="Every usage check over the whole history: a full scan, run on its own (weekly), never by a daily run.",
)
def warehouse_audit(warehouse: WarehouseResource) -> Iterator[dg.AssetCheckResult]:
    with warehouse.get_connection() as conn:
        # A full scan gets more memory than a daily run's slice, and spills past it.
        run_sql(conn, _SQL / "limit_audit.sql")
        outcomes = run_checks(conn, REPORT_CHECKS, where="whole history", **WHOLE_HISTORY)
        outcomes += run_checks(conn, _RUN_CHECKS, since=_EPOCH, **WHOLE_HISTORY)
    yield from check_results((*REPORT_CHECKS, *_RUN_CHECKS), outcomes, prefix=AUDIT_PREFIX)
