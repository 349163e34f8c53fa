"""The page's teams section (an extension: docs/extensions.md), from bi.team_usage_periods."""

from __future__ import annotations

from collections import defaultdict
from html import escape
from typing import Any

import duckdb

from pipelines.warehouse.sql import run_sql

_CHANGE = {"new": "new", "grown": "▲ grown", "shrunk": "▼ shrunk", "gone": "gone", "steady": "= steady"}


def _num(value: Any) -> str:
    return "—" if value is None else f"{value:,}"


def teams_section(conn: duckdb.DuckDBPyConnection, *, scope: str, scope_name: str) -> str:
    """Each team of one scope, which the heading names, over its last 28 days: members, active users
    and the change, agent apps used."""
    rows = run_sql(conn, "page/select_team_periods.sql", scope=scope, scope_name=scope_name)
    if not rows:
        return ""
    agents: dict[int, list[str]] = defaultdict(list)
    for team_id, agent_name, starts in run_sql(conn, "page/select_team_agents.sql", scope=scope, scope_name=scope_name):
        agents[team_id].append(f"{escape(agent_name)} ({starts:,})")
    body = []
    for team_id, slug, _start, _end, members, active, previous, agent_users, interactions, credits, change, *_ in rows:
        body.append(
            f'<tr class="team-row" data-team-id="{team_id}"><td>{escape(slug)}</td>'
            f'<td class="num">{_num(members)}</td><td class="num">{_num(active)}</td>'
            f'<td class="num muted">{_num(previous)}</td><td>{_CHANGE.get(change or "", "no comparison")}</td>'
            f'<td class="num">{_num(agent_users)}</td><td>{", ".join(agents[team_id]) or "—"}</td>'
            f'<td class="num">{_num(interactions)}</td><td class="num">{credits or 0:,.2f}</td></tr>'
        )
    start, end, compared, previous_compared, minimum = rows[0][2], rows[0][3], rows[0][11], rows[0][12], rows[0][13]
    basis = f"{compared} final days with team data against {previous_compared}" if previous_compared else (
        f"{compared} final days with team data, no earlier period"
    )
    return (
        f'<section class="card" id="teams"><h2>Teams of {escape(scope)} {escape(scope_name)}</h2>'
        f'<p class="lead">{start} to {end}. Each day counts for the team the user was on that day; a user on two '
        "teams counts in both, so teams do not add up to the organization. Teams under 5 members on a day are "
        f"not reported for that day. Active users a day compared on {basis}: a change only beyond the day-to-day "
        f"noise, none unless both periods have {minimum}.</p>"
        '<table class="periods"><thead><tr><th>Team</th><th>Members</th><th>Active users</th><th>previous</th>'
        "<th>Change</th><th>Agent users</th><th>Agent apps (job starts)</th><th>Interactions</th>"
        f"<th>AI credits</th></tr></thead><tbody>{''.join(body)}</tbody></table></section>"
    )
