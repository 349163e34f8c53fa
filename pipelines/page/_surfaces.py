"""The page's "Agent surfaces" section: which agents developers use, the service's own and
third-party apps side by side, from bi.agent_surfaces_daily (the example query that answers it)."""

from __future__ import annotations

from html import escape

import duckdb

from pipelines.warehouse.sql import run_sql


def surfaces_section(conn: duckdb.DuckDBPyConnection) -> str:
    """Per scope and surface over the newest 28 days: days used, users a day, the busiest day."""
    rows = run_sql(conn, "queries/select_agent_surfaces_in_use.sql")
    if not rows:
        return ""
    body = "".join(
        f'<tr class="surface-row"><td>{escape(scope)} {escape(name)}</td><td>{escape(surface)}</td>'
        f'<td class="num">{days:,}</td><td class="num">{users:,.1f}</td><td class="num">{most:,}</td></tr>'
        for scope, name, surface, days, users, most in rows
    )
    return (
        '<section class="card" id="agent-surfaces"><h2>Agent surfaces</h2>'
        '<p class="lead">Which agents developers use, the service\'s own (cloud agent, desktop app, VS Code '
        "agents, CLI) and third-party apps side by side, over the newest 28 days: users a day from the "
        "user-level report. A person on two surfaces counts on both, so the rows are never added up.</p>"
        '<table class="periods"><thead><tr><th>Scope</th><th>Surface</th><th>Days used</th><th>Users a day</th>'
        f"<th>Most in a day</th></tr></thead><tbody>{body}</tbody></table></section>"
    )
