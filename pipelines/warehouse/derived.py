"""What the landings derive from user rows, computed again for the scope days rows left (an
erasure, retention): core.agent_days' user level, core.team_days and their dimensions, and
every rollup, with their lake partitions marked changed.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date, timedelta
from typing import Any

import duckdb

from pipelines.transform.schema import USER
from pipelines.warehouse.rollups import refresh_rollups
from pipelines.warehouse.sql import run_sql

__all__ = ["ScopeDay", "refresh_derived", "refresh_team_days"]

# Days of a scope this close are refreshed as one run: a reach rollup is computed again for the
# 27 days after a run anyway.
_RUN_GAP = 28

ScopeDay = tuple[str, str, date]  # scope, scope_name, day


def refresh_derived(conn: duckdb.DuckDBPyConnection, days: Iterable[ScopeDay]) -> None:
    """What the landings derive from user rows, computed again for the scope days rows left (an
    erasure, retention), inside the caller's transaction: core.agent_days' user level with the
    agent dimensions, core.team_days with the team dimension, and every rollup; their lake
    partitions are marked changed."""
    for scope, scope_name, start_day, end_day in _runs(days):
        span: dict[str, Any] = {"scope": scope, "scope_name": scope_name, "start_day": start_day, "end_day": end_day}
        run_sql(conn, "privacy/begin_agent_days_refresh.sql", level=USER, **span)
        run_sql(conn, "warehouse/refresh_agent_dimensions.sql", level=USER, **span)
        run_sql(conn, "privacy/end_agent_days_refresh.sql")
        refresh_team_days(conn, **span)
        refresh_rollups(conn, **span)
        run_sql(conn, "warehouse/mark_lake_changes.sql", tables=["core.agent_days"], **span)


def refresh_team_days(
    conn: duckdb.DuckDBPyConnection, *, scope: str, scope_name: str, start_day: date, end_day: date
) -> None:
    """core.team_days (members per listed team) and core.dim_team counted again from the
    memberships left on a scope's days, inside the caller's transaction; their partitions marked."""
    span: dict[str, Any] = {"scope": scope, "scope_name": scope_name, "start_day": start_day, "end_day": end_day}
    run_sql(conn, "warehouse/begin_user_teams.sql", **span)
    run_sql(conn, "privacy/delete_team_days.sql", **span)
    run_sql(conn, "warehouse/refresh_team_dimensions.sql", **span)
    run_sql(conn, "warehouse/mark_lake_changes.sql", tables=["core.team_days"], **span)


def _runs(days: Iterable[ScopeDay]) -> list[tuple[str, str, date, date]]:
    """Each scope's days as runs of days: (scope, scope_name, first day, last day)."""
    runs: list[tuple[str, str, date, date]] = []
    for scope, scope_name, day in sorted(set(days)):
        if runs and runs[-1][:2] == (scope, scope_name) and day - runs[-1][3] <= timedelta(days=_RUN_GAP):
            runs[-1] = (scope, scope_name, runs[-1][2], day)
        else:
            runs.append((scope, scope_name, day, day))
    return runs
