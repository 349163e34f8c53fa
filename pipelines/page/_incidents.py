"""The page's "Known service incidents" section, from bi.service_incident_days: the days of the
page on which the service documented that some of its numbers are wrong, and what it said."""

from __future__ import annotations

from html import escape

import duckdb

from pipelines.warehouse.sql import run_sql


def incidents_section(conn: duckdb.DuckDBPyConnection) -> str:
    """One row per incident touching a landed day of the page's scopes; nothing when none does."""
    rows = run_sql(conn, "page/select_incidents.sql")
    if not rows:
        return ""
    body = "".join(
        f'<tr class="incident" data-incident="{escape(incident_id)}">'
        f"<td>{first} to {last}{' (about)' if approximate else ''}<br>{days:,} day{'s' if days != 1 else ''}</td>"
        f"<td>{escape(summary)}<br>{escape(scopes)}</td><td><code>{escape(', '.join(measures))}</code></td>"
        f"<td>{escape(said)}</td></tr>"
        for incident_id, first, last, days, scopes, approximate, measures, summary, said in rows
    )
    return (
        '<section class="card" id="service-incidents"><h2>Known service incidents</h2>'
        '<p class="lead">Days of this page on which the service documented that some of its numbers are '
        "wrong: read those measures on those days with care (the bi view <code>bi.service_incident_days</code> "
        "marks each day).</p>"
        '<table class="periods"><thead><tr><th>Days</th><th>What is wrong</th><th>Measures</th>'
        f"<th>What the service said</th></tr></thead><tbody>{body}</tbody></table></section>"
    )
