"""The page's seats section (an extension: docs/extensions.md), from bi.seat_utilization and bi.inactive_seats."""

from __future__ import annotations

from html import escape

import duckdb

from pipelines.warehouse.sql import run_sql


def seats_section(conn: duckdb.DuckDBPyConnection) -> str:
    """Seat use on each organization's newest snapshot day, and the seats unused longest."""
    totals = run_sql(conn, "page/select_seat_totals.sql")
    if not totals:
        return ""
    rows = "".join(
        f'<tr class="seat-row"><td>{escape(org)}</td><td>{day}</td><td class="num">{seats:,}</td>'
        f'<td class="num">{active_7d:,}</td><td class="num">{active_30d:,}</td><td class="num">{inactive:,}</td>'
        f'<td class="num">{never:,}</td><td class="num">{pending:,}</td></tr>'
        for org, day, seats, active_7d, active_30d, inactive, never, pending in totals
    )
    idle = "".join(
        f'<tr class="inactive-seat"><td>{escape(org)}</td><td>{escape(login)}</td><td>{escape(team)}</td>'
        f"<td>{'never active' if never else since}</td><td class=\"num\">{days:,}</td>"
        f"<td>{pending or ''}</td></tr>"
        for org, login, team, since, days, never, pending in run_sql(conn, "page/select_inactive_seats.sql")
    )
    return (
        '<section class="card" id="seats"><h2>Seats</h2>'
        '<p class="lead">The newest seat snapshot of each organization. Active: any assistant activity in the '
        "last 7 or 30 days before the snapshot day; inactive includes the never active.</p>"
        '<table class="periods"><thead><tr><th>Organization</th><th>Snapshot</th><th>Seats</th><th>Active 7 d</th>'
        "<th>Active 30 d</th><th>Inactive 30 d</th><th>Never active</th><th>Pending cancellation</th></tr></thead>"
        f"<tbody>{rows}</tbody></table>"
        '<table class="periods"><caption><strong>Unused longest</strong> · candidates for clean-up</caption>'
        "<thead><tr><th>Organization</th><th>Who</th><th>Assigned by</th><th>Inactive since</th><th>Days</th>"
        f"<th>Pending cancellation</th></tr></thead><tbody>{idle}</tbody></table></section>"
    )
