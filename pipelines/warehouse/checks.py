"""Data checks: each is one query answering (failures, detail) about the table it guards.

The report checks look at a slice, what one write touched: a report's scope, level and days,
checked inside the report's transaction before COMMIT, so a report that fails a blocking check
leaves the previous state. The same query over the whole history (a NULL scope, the widest
days) is the audit, a job of its own: no daily run pays for a scan of every table. Dagster's
per-run checks (pipelines/defs/<concern>/checks.py) are the same `Check`, over their own params.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

import duckdb

from pipelines.service.kinds import REPORT_KINDS
from pipelines.warehouse.catalog import TABLES
from pipelines.warehouse.sql import run_sql

__all__ = [
    "REPORT_CHECKS",
    "WHOLE_HISTORY",
    "Check",
    "CheckOutcome",
    "ChecksFailed",
    "report_checks",
    "run_checks",
    "slice_params",
]

_BOTH = frozenset({"aggregate", "user"})
_AGGREGATE = frozenset({"aggregate"})
_USER = frozenset({"user"})
_DETAIL_CHARS = 2000


@dataclass(frozen=True)
class Check:
    """A query in a .sql file answering (failures, detail); `identifiers` fill a template's placeholders.

    A blocking check that fails stops what depends on its table (in Dagster, and for a report
    its COMMIT); a non-blocking one warns. The name is what Dagster shows, with the table.
    """

    name: str
    table: tuple[str, str]  # (schema, table) it guards
    sql: str | Path
    description: str
    blocking: bool = True
    levels: frozenset[str] = _BOTH  # report levels whose slice it applies to
    identifiers: tuple[tuple[str, str], ...] = ()
    # A query over key hashes `% $parts = $part`: run in as many passes as its slice has rows
    # per pass (`passes_sql` counts them), each answer summed (0: one pass, no such parameters).
    rows_per_pass: int = 0
    passes_sql: str = ""


@dataclass(frozen=True)
class CheckOutcome:
    check: Check
    failures: int
    detail: str
    where: str  # the slice: "organization acme user 2026-11-01", "whole history", or "" (the run's own)

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


@dataclass(frozen=True)
class _Facts:
    """A core table of report facts, as the grain and sign templates need it."""

    table: str
    grain: str  # the key in words, for the description
    key: tuple[str, ...]
    label: tuple[str, ...]  # key columns that name a failing row in the detail
    counters: tuple[str, ...]
    levels: frozenset[str]

    def identifiers(self) -> tuple[tuple[str, str], ...]:
        names = (self.table, *self.key, *self.label, *self.counters)
        if not all(_IDENTIFIER.match(name) for name in names):
            raise ValueError(f"not an identifier among {names}")
        # A failing check's detail reaches logs, alerts and Dagster's storage, which hold no person.
        if named := set(self.label) & _PERSON_COLUMNS:
            raise ValueError(f"core.{self.table}: a check's label names people ({', '.join(sorted(named))})")
        # A table without a level column holds one level: its slice is scope and name.
        slice_columns = [c for c in ("scope", "scope_name", "level") if c in self.key]
        return (
            ("table", self.table),
            ("key", ", ".join(self.key)),
            ("label", ", ".join(self.label)),
            ("counters", ", ".join(self.counters)),
            ("slice", " AND ".join(f"{c} = ${c}" for c in slice_columns)),
        )

    def checks(self) -> tuple[Check, ...]:
        """The grain check, and the sign check when the table has counters."""
        table, identifiers = ("core", self.table), self.identifiers()
        grain = Check(
            "grain_is_unique",
            table,
            "checks/count_duplicate_rows.sql",
            f"One row per {self.grain}.",
            levels=self.levels,
            identifiers=identifiers,
            rows_per_pass=_GRAIN_ROWS_PER_PASS,
            passes_sql="checks/count_slice_rows.sql",
        )
        if not self.counters:
            return (grain,)
        sign = Check(
            "counts_are_non_negative",
            table,
            "checks/count_negative_rows.sql",
            "No count below zero.",
            levels=self.levels,
            identifiers=identifiers,
        )
        return grain, sign


_IDENTIFIER = re.compile(r"^[a-z_][a-z0-9_]*$")
# The grain check groups its slice's key hashes; a table of groups for 1.5 M breakdown rows (a
# 500,000-user day) raised the landing's peak RSS by ~110 MB in one pass, ~47 MB in four
# (docs/benchmarks.md), and the audit's whole history is larger still: passes bound it.
_GRAIN_ROWS_PER_PASS = 400_000
_PERSON_COLUMNS = {column for t in TABLES if t.person for column in t.person}
# The levels of the reports landed inside another's transaction: writers of facts too.
_CARRIED_LEVELS = {k.level for k in REPORT_KINDS if k.carried_by is not None}
# The report fact tables whose grain (with its label) and counters the catalog gives, as the templates need them.
_FACTS = tuple(
    _Facts(
        t.table,
        ", ".join(c.replace("_", " ") for c in t.grain),
        t.grain,
        t.label,
        t.counters,
        t.levels,
    )
    for t in TABLES
    if (t.writer == "report" or t.writer in _CARRIED_LEVELS) and t.label
)

# Checked in every report's transaction over the report's slice (and by the audit over all).
REPORT_CHECKS: tuple[Check, ...] = (
    *(check for facts in _FACTS for check in facts.checks()),
    Check(
        "agent_rules_hold",
        ("core", "agent_activity"),
        "checks/count_agent_rows_breaking_rules.sql",
        "agent_id is never NULL; session_count is NULL at user level (docs/service-contract.md §2).",
    ),
    Check(
        "agrees_with_agent_activity",
        ("core", "agent_days"),
        "checks/count_agent_days_differing_from_facts.sql",
        "Holds exactly the (scope, level, day, agent_id, agent_name) found in core.agent_activity.",
    ),
    Check(
        "covers_every_agent",
        ("core", "dim_agent"),
        "checks/count_agents_missing_from_dim.sql",
        "Every agent_id in core.agent_activity has a row with its latest label.",
    ),
    Check(
        "members_are_users_of_the_day",
        ("core", "user_team_days"),
        "checks/count_team_members_without_user_rows.sql",
        "Each team member of a day has a record in that day's 1-day user report (else left out of team metrics).",
        blocking=False,
        levels=_USER,
    ),
    Check(
        "pull_requests_fit_the_aggregate",
        ("core", "repository_days"),
        "checks/count_repository_pull_requests_beyond_aggregate.sql",
        "A day's repositories hold no more pull requests created, reviewed or merged than the aggregate record "
        "of the day (fewer is expected: a repository deleted or transferred).",
        blocking=False,
        levels=_AGGREGATE,
    ),
    Check(
        "covers_every_team",
        ("core", "dim_team"),
        "checks/count_teams_missing_from_dim.sql",
        "Every team of core.team_days has a row with its latest slug.",
        levels=_USER,
    ),
    Check(
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
    conn: duckdb.DuckDBPyConnection, checks: Iterable[Check], *, where: str = "", **params: Any
) -> list[CheckOutcome]:
    """Each check's outcome; `params` are bound to the parameters each query names."""
    outcomes = []
    for check in checks:
        identifiers = dict(check.identifiers)
        parts = 1
        if check.rows_per_pass:
            ((rows,),) = run_sql(conn, check.passes_sql, identifiers=identifiers, **params)
            parts = max(1, -(-int(rows) // check.rows_per_pass))
        failures, details = 0, []
        for part in range(parts):
            found, detail = run_sql(conn, check.sql, identifiers=identifiers, part=part, parts=parts, **params)[0]
            failures += int(found)
            details += [detail] if detail else []
        outcomes.append(CheckOutcome(check, failures, ", ".join(details)[:_DETAIL_CHARS], where))
    return outcomes


def report_checks(level: str) -> tuple[Check, ...]:
    return tuple(check for check in REPORT_CHECKS if level in check.levels)
