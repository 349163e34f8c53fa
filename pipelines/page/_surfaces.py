"""The page's "Agent surfaces" section: which agents developers use, the service's own and
third-party apps side by side, from bi.agent_surfaces_daily (the example query that answers it)."""

from __future__ import annotations

from html import escape

import duckdb

from pipelines.page._table import Cell, table
from pipelines.warehouse.sql import run_sql

_HEADINGS = ("Surface", "Scope", "Days used", "Users a day", "Most in a day")


def surfaces_section(conn: duckdb.DuckDBPyConnection) -> str:
    """Per scope and surface over the newest 28 days: days used, users a day, the busiest day."""
    rows = run_sql(conn, "queries/select_agent_surfaces_in_use.sql")
    if not rows:
        return ""
    body: list[tuple[str, list[Cell]]] = [
        (
            'class="surface-row"',
            [
                (f"{escape(surface)}", ""),
                (f"{escape(scope)} {escape(name)}", ""),
                (f"{days:,}", "num"),
                (f"{users:,.1f}", "num"),
                (f"{most:,}", "num"),
            ],
        )
        for scope, name, surface, days, users, most in rows
    ]
    return (
        '<section class="card" id="agent-surfaces"><h2>Agent surfaces</h2>'
        '<p class="lead">Which agents developers use, the service\'s own (cloud agent, desktop app, VS Code '
        "agents, CLI) and third-party apps side by side, over the newest 28 days: users a day from the "
        "user-level report. A person on two surfaces counts on both, so the rows are never added up.</p>"
        f"{table(headings=_HEADINGS, rows=body)}</section>"
    )
