"""Asset checks: each is one query in sql/checks/ answering (failures, detail).

They are reported by the materialization that wrote the table (as `check_specs`), so a
blocking failure stops everything downstream of it in the same run, such as the serving database.
Each looks at what its run wrote: the usage reports' grain, sign and agent checks run inside
each report's transaction (a failing report is rolled back); the rest over the run's days or
fetches. The same queries over the whole history are the audit, a job of its own.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import dagster as dg
import duckdb

from pipelines.warehouse.sql import run_sql
from pipelines.warehouse.checks import REPORT_CHECKS, CheckOutcome, DataCheck

_ERROR = dg.AssetCheckSeverity.ERROR
_WARN = dg.AssetCheckSeverity.WARN


@dataclass(frozen=True)
class TableCheck:
    name: str
    asset: tuple[str, ...]
    sql: str
    description: str
    blocking: bool = True
    severity: dg.AssetCheckSeverity = _ERROR

    @property
    def spec(self) -> dg.AssetCheckSpec:
        return dg.AssetCheckSpec(
            self.name, asset=dg.AssetKey(list(self.asset)), description=self.description, blocking=self.blocking
        )


# Checked after the run's reports, over what the run fetched or the days it covered. The grain,
# sign and agent checks run inside each report's transaction (pipelines.warehouse.checks).
USAGE_RUN_CHECKS: tuple[TableCheck, ...] = (
    TableCheck(
        "quarantine_is_empty",
        ("raw", "report_files"),
        "checks/count_quarantined_lines.sql",
        "Every line of the reports this run fetched landed; quarantined lines (raw.quarantine, "
        "`metrics-etl quarantine list`) need a look. Lines found by earlier runs do not count.",
    ),
    TableCheck(
        "days_without_agent_array",
        ("core", "daily_totals"),
        "checks/count_days_without_agent_array.sql",
        "Days of the run whose report carried no third-party agent array (a gap, not zero).",
        blocking=False,
        severity=_WARN,
    ),
    TableCheck(
        "fresh_against_available_day",
        ("core", "daily_totals"),
        "checks/count_stale_usage_days.sql",
        "The newest landed day is at most a day older than the newest available report day.",
        blocking=False,
        severity=_WARN,
    ),
)

SNAPSHOT_CHECKS: tuple[TableCheck, ...] = (
    TableCheck(
        "no_skipped_repositories",
        ("snapshots", "repositories"),
        "checks/count_snapshot_warnings.sql",
        "No repository was skipped (404/403) on the newest snapshot day.",
        blocking=False,
        severity=_WARN,
    ),
    TableCheck(
        "every_repository_has_stats",
        ("snapshots", "repository_stats"),
        "checks/count_repositories_without_stats.sql",
        "Each repository of a day has its GraphQL counts, or a recorded warning.",
    ),
    TableCheck(
        "counts_are_consistent",
        ("snapshots", "repository_stats"),
        "checks/count_negative_repository_stats.sql",
        "Counts are non-negative and open counts never exceed totals.",
    ),
    TableCheck(
        "issues_belong_to_known_repositories",
        ("snapshots", "issues"),
        "checks/count_issues_of_unknown_repositories.sql",
        "Every issue joins to the repository snapshot of its day by numeric id.",
    ),
    TableCheck(
        "members_visible",
        ("snapshots", "org_members"),
        "checks/count_days_without_members.sql",
        "Each snapshot day lists at least one organization member.",
    ),
)

EVENT_CHECKS: tuple[TableCheck, ...] = (
    TableCheck(
        "deliveries_name_event_and_repository",
        ("events", "webhook_deliveries"),
        "checks/count_deliveries_without_event.sql",
        "Each delivery names its event kind, and its repository for repository events.",
    ),
)


def specs(checks: Iterable[TableCheck]) -> list[dg.AssetCheckSpec]:
    return [check.spec for check in checks]


def evaluate(
    conn: duckdb.DuckDBPyConnection, checks: Sequence[TableCheck], *, prefix: str = "", **params: Any
) -> Iterator[dg.AssetCheckResult]:
    for check in checks:
        failures, detail = run_sql(conn, check.sql, **params)[0]
        yield dg.AssetCheckResult(
            asset_key=dg.AssetKey(list(check.asset)),
            check_name=prefix + check.name,
            passed=failures == 0,
            severity=check.severity,
            metadata={"failures": failures, "detail": (detail or "")[:2000]},
        )


def report_spec(check: DataCheck, *, prefix: str = "", blocking: bool | None = None) -> dg.AssetCheckSpec:
    return dg.AssetCheckSpec(
        prefix + check.name,
        asset=dg.AssetKey(list(check.table)),
        description=check.description,
        blocking=check.blocking if blocking is None else blocking,
    )


def report_check_specs() -> list[dg.AssetCheckSpec]:
    return [report_spec(check) for check in REPORT_CHECKS]


def report_check_results(outcomes: Iterable[CheckOutcome], *, prefix: str = "") -> Iterator[dg.AssetCheckResult]:
    """One result per report check: the outcomes of every report of the run, summed."""
    by_check: dict[DataCheck, list[CheckOutcome]] = {}
    for outcome in outcomes:
        by_check.setdefault(outcome.check, []).append(outcome)
    for check in REPORT_CHECKS:
        found = by_check.get(check, [])
        failed = [o for o in found if not o.passed]
        yield dg.AssetCheckResult(
            asset_key=dg.AssetKey(list(check.table)),
            check_name=prefix + check.name,
            passed=not failed,
            severity=_ERROR if check.blocking else _WARN,
            metadata={
                "failures": sum(o.failures for o in failed),
                "detail": "; ".join(f"{o.where}: {o.detail}" for o in failed)[:2000],
                "slices_checked": len(found),
            },
        )
