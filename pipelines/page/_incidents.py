"""The page's "Known service incidents" section, from bi.service_incident_days: the days of the
page on which the service documented that some of its numbers are wrong, and what it said."""

from __future__ import annotations

from html import escape

import duckdb

from pipelines.page._table import Cell, table
from pipelines.warehouse.sql import run_sql

# Every cell carries its heading, so a phone's stacked rows say what each is (_table.py).
_HEADINGS = ("Days", "What is wrong", "Measures", "What the service said")


def incidents_section(conn: duckdb.DuckDBPyConnection) -> str:
    """One row per incident touching a landed day of the page's scopes; nothing when none does."""
    rows = run_sql(conn, "page/select_incidents.sql")
    if not rows:
        return ""
    body: list[tuple[str, list[Cell]]] = [
        (
            f'class="incident" data-incident="{escape(incident_id)}"',
            [
                (f"{first} to {last}{' (about)' if approximate else ''}<br>{days:,} day{'s' if days != 1 else ''}", ""),
                (f"{escape(summary)}<br>{escape(scopes)}", ""),
                (f"<code>{escape(', '.join(measures))}</code>", ""),
                (escape(said), ""),
            ],
        )
        for incident_id, first, last, days, scopes, approximate, measures, summary, said in rows
    ]
    return (
        '<section class="card" id="service-incidents"><h2>Known service incidents</h2>'
        '<p class="lead">Days of this page on which the service documented that some of its numbers are '
        "wrong: read those measures on those days with care (the bi view <code>bi.service_incident_days</code> "
        "marks each day).</p>"
        f"{table(headings=_HEADINGS, rows=body)}</section>"
    )
