"""Asset checks: each is one query in sql/checks/ answering (failures, detail).

They run inside the materialization that wrote the table (as `check_specs`), so a blocking
failure stops everything downstream of it in the same run, such as the serving copy.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import dagster as dg
import duckdb

from pipelines.warehouse._sql import run_sql

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


def _grain(table: str, columns: str) -> TableCheck:
    return TableCheck(
        "grain_is_unique", ("core", table), f"checks/count_duplicate_{table}.sql", f"One row per {columns}."
    )


def _non_negative(table: str) -> TableCheck:
    return TableCheck(
        "counts_are_non_negative", ("core", table), f"checks/count_negative_{table}.sql", "No count below zero."
    )


USAGE_CHECKS: tuple[TableCheck, ...] = (
    TableCheck(
        "quarantine_is_empty",
        ("raw", "report_files"),
        "checks/count_quarantined_lines.sql",
        "Every line of every report file landed; quarantined lines (raw.quarantine) need a look.",
    ),
    _grain("daily_totals", "scope, scope name and day"),
    _non_negative("daily_totals"),
    TableCheck(
        "days_without_agent_array",
        ("core", "daily_totals"),
        "checks/count_days_without_agent_array.sql",
        "Days whose report carried no third-party agent array (a gap, not zero).",
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
    _grain("user_daily_totals", "scope, scope name, day and user"),
    _non_negative("user_daily_totals"),
    _grain("breakdowns", "scope, level, day, user, breakdown kind and keys"),
    _non_negative("breakdowns"),
    _grain("agent_activity", "scope, level, day, user and agent_id"),
    _non_negative("agent_activity"),
    TableCheck(
        "agent_rules_hold",
        ("core", "agent_activity"),
        "checks/count_agent_rows_breaking_rules.sql",
        "agent_id is never NULL; session_count is NULL at user level (spec 2.1).",
    ),
    TableCheck(
        "covers_every_agent",
        ("core", "dim_agent"),
        "checks/count_agents_missing_from_dim.sql",
        "Every agent_id in core.agent_activity has a row with its latest label.",
    ),
    TableCheck(
        "keeps_every_label",
        ("core", "agent_names"),
        "checks/count_unlisted_agent_names.sql",
        "Every (agent_id, agent_name) seen in the facts is listed, first seen before last seen.",
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
    conn: duckdb.DuckDBPyConnection, checks: Sequence[TableCheck], **params: Any
) -> Iterator[dg.AssetCheckResult]:
    for check in checks:
        failures, detail = run_sql(conn, check.sql, **params)[0]
        yield dg.AssetCheckResult(
            asset_key=dg.AssetKey(list(check.asset)),
            check_name=check.name,
            passed=failures == 0,
            severity=check.severity,
            metadata={"failures": failures, "detail": (detail or "")[:2000]},
        )
