"""The page's teams section (an extension: docs/extensions.md), from bi.team_usage_periods."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from datetime import date
from html import escape
from typing import Any

import duckdb

from pipelines.page._change import Change
from pipelines.page._periods import landed
from pipelines.page._table import Cell, table
from pipelines.warehouse.sql import run_sql


@dataclass(frozen=True)
class _TeamRow:
    """One row of page/select_team_periods.sql."""

    team_id: int
    team_slug: str
    period_start: date
    period_end: date
    members: int
    active_users: int
    third_party_agent_users: int
    interactions: int
    credits: float | None
    per_day: float | None
    previous_per_day: float | None
    change: str | None
    change_low: float | None
    change_high: float | None
    compared_days: int | None
    previous_compared_days: int | None
    min_compared_days: int
    landed_days: int


def _num(value: Any) -> str:
    return "—" if value is None else f"{value:,}"


def _why_no_comparison(r: _TeamRow) -> str:
    if r.previous_compared_days is None:
        return "no comparison: no earlier period with team data"
    return (
        f"no comparison: {r.compared_days or 0} and {r.previous_compared_days} final days with team data, "
        f"fewer than {r.min_compared_days} in a period"
    )


_HEADINGS = (
    "Team",
    "Members",
    "Active users",
    "Active users a day",
    "Change in active users a day",
    "Third-party agent users",
    "Agent apps (job starts)",
    "Interactions",
    "AI credits",
)


def teams_section(conn: duckdb.DuckDBPyConnection, *, scope: str, scope_name: str) -> str:
    """Each team of one scope, which the heading names, over its last 28 days: members, active
    users, the change in active users a day beside the rates it is called on, agent apps used."""
    rows = [_TeamRow(*row) for row in run_sql(conn, "page/select_team_periods.sql", scope=scope, scope_name=scope_name)]
    if not rows:
        return ""
    agents: dict[int, list[str]] = defaultdict(list)
    for team_id, agent_name, starts in run_sql(conn, "page/select_team_agents.sql", scope=scope, scope_name=scope_name):
        agents[team_id].append(f"{escape(agent_name)} ({starts:,})")
    body: list[tuple[str, list[Cell]]] = []
    for r in rows:
        change = Change(r.change, r.per_day, r.previous_per_day, r.change_low, r.change_high, _why_no_comparison(r))
        rates = (
            "—"
            if r.per_day is None
            else f"{r.per_day:,.1f}"
            + (
                f' <span class="muted">({r.previous_per_day:,.1f} before)</span>'
                if r.previous_per_day is not None
                else ""
            )
        )
        body.append(
            (
                f'class="team-row" data-team-id="{r.team_id}"',
                [
                    (escape(r.team_slug), ""),
                    (_num(r.members), "num"),
                    (_num(r.active_users), "num"),
                    (rates, "num"),
                    (change.verdict(), "verdict"),
                    (_num(r.third_party_agent_users), "num"),
                    (", ".join(agents[r.team_id]) or "—", ""),
                    (_num(r.interactions), "num"),
                    (f"{r.credits or 0:,.2f}", "num"),
                ],
            )
        )
    first = rows[0]
    short = landed(first.landed_days)
    span = f"{first.period_start} to {first.period_end}" + (
        f' · <strong class="short-period">only {short}</strong>: members and active users count those days alone'
        if short
        else ""
    )
    return (
        f'<section class="card" id="teams"><h2>Teams of {escape(scope)} {escape(scope_name)}</h2>'
        f'<p class="lead">{span}. Each day counts for the team the user was on that day; a user on two '
        "teams counts in both, so teams do not add up to the organization. Teams under 5 members on a day are "
        "not reported for that day. Active users: on any surface the service documents (IDE, CLI, desktop app, "
        "cloud agent, VS Code agents, code review, third-party agents), counted from user lines, as the service "
        "gives no team figure. Members and active users are distinct over the period. The change is "
        "called on active users a day (the mean over the final days with team data, shown beside it), "
        "against the previous 28 days: grown or shrunk only beyond the day-to-day noise, none unless both "
        f"periods have {first.min_compared_days} such days.</p>"
        f"{table(headings=_HEADINGS, rows=body)}</section>"
    )
