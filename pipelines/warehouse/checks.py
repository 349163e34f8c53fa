"""Data checks: each is one query in sql/checks/ answering (failures, detail) over a slice.

A slice is what one write touched: a report's scope, level and days, checked inside the
report's transaction before COMMIT, so a report that fails a blocking check leaves the previous
state. The same query over the whole history (a NULL scope, the widest days) is the audit, a
job of its own: no daily run pays for a scan of every table.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any

import duckdb

from pipelines.warehouse.sql import run_sql

_BOTH = frozenset({"aggregate", "user"})
_DETAIL_CHARS = 2000


@dataclass(frozen=True)
class DataCheck:
    name: str
    table: tuple[str, str]  # (schema, table) it guards
    sql: str
    description: str
    blocking: bool = True
    levels: frozenset[str] = _BOTH  # report levels whose slice it applies to


@dataclass(frozen=True)
class CheckOutcome:
    check: DataCheck
    failures: int
    detail: str
    where: str  # the slice: "organization acme user 2026-11-01", or "whole history"

    @property
    def passed(self) -> bool:
        return self.failures == 0

    def describe(self) -> str:
        schema, table = self.check.table
        text = f"check {self.check.name} on {schema}.{table} found {self.failures} in {self.where}"
        return f"{text} ({self.detail[:300]})" if self.detail else text


class ChecksFailed(Exception):
    """A report failed a blocking check inside its transaction; nothing of it was committed."""

    def __init__(self, outcomes: Sequence[CheckOutcome]) -> None:
        self.outcomes = tuple(outcomes)
        failed = [o.describe() for o in self.outcomes if not o.passed and o.check.blocking]
        super().__init__("; ".join(failed) + "; the report was not landed, the previous state stays")


def _grain(table: str, columns: str, levels: frozenset[str] = _BOTH) -> DataCheck:
    return DataCheck(
        "grain_is_unique", ("core", table), f"checks/count_duplicate_{table}.sql", f"One row per {columns}.", levels=levels
    )


def _non_negative(table: str, levels: frozenset[str] = _BOTH) -> DataCheck:
    return DataCheck(
        "counts_are_non_negative", ("core", table), f"checks/count_negative_{table}.sql", "No count below zero.",
        levels=levels,
    )


_AGGREGATE = frozenset({"aggregate"})
_USER = frozenset({"user"})

# Checked in every report's transaction over the report's slice (and by the audit over all).
REPORT_CHECKS: tuple[DataCheck, ...] = (
    _grain("daily_totals", "scope, scope name and day", _AGGREGATE),
    _non_negative("daily_totals", _AGGREGATE),
    _grain("user_daily_totals", "scope, scope name, day and user", _USER),
    _non_negative("user_daily_totals", _USER),
    _grain("breakdowns", "scope, level, day, user, breakdown kind and keys"),
    _non_negative("breakdowns"),
    _grain("agent_activity", "scope, level, day, user and agent_id"),
    _non_negative("agent_activity"),
    DataCheck(
        "agent_rules_hold",
        ("core", "agent_activity"),
        "checks/count_agent_rows_breaking_rules.sql",
        "agent_id is never NULL; session_count is NULL at user level (spec 2.1).",
    ),
    DataCheck(
        "agrees_with_agent_activity",
        ("core", "agent_days"),
        "checks/count_agent_days_differing_from_facts.sql",
        "Holds exactly the (scope, level, day, agent_id, agent_name) found in core.agent_activity.",
    ),
    DataCheck(
        "covers_every_agent",
        ("core", "dim_agent"),
        "checks/count_agents_missing_from_dim.sql",
        "Every agent_id in core.agent_activity has a row with its latest label.",
    ),
    DataCheck(
        "keeps_every_label",
        ("core", "agent_names"),
        "checks/count_unlisted_agent_names.sql",
        "Every (agent_id, agent_name) seen in the facts is listed with days that cover where it was seen.",
    ),
)


def slice_params(
    *, scope: str | None, scope_name: str | None, level: str | None, start_day: date, end_day: date
) -> dict[str, Any]:
    return {"scope": scope, "scope_name": scope_name, "level": level, "start_day": start_day, "end_day": end_day}


WHOLE_HISTORY = slice_params(scope=None, scope_name=None, level=None, start_day=date.min, end_day=date.max)


def run_checks(
    conn: duckdb.DuckDBPyConnection, checks: Iterable[DataCheck], *, where: str, **params: Any
) -> list[CheckOutcome]:
    outcomes = []
    for check in checks:
        failures, detail = run_sql(conn, check.sql, **params)[0]
        outcomes.append(CheckOutcome(check, int(failures), (detail or "")[:_DETAIL_CHARS], where))
    return outcomes


def report_checks(level: str) -> tuple[DataCheck, ...]:
    return tuple(check for check in REPORT_CHECKS if level in check.levels)
