"""The page's seats section (an extension: docs/extensions.md), from bi.seat_utilization and bi.inactive_seats."""

from __future__ import annotations

from html import escape

import duckdb

from pipelines.page._table import Cell, table
from pipelines.warehouse.sql import run_sql

_TOTALS = (
    "Organization",
    "Snapshot",
    "Seats",
    "Active 7 d",
    "Active 30 d",
    "Inactive 30 d",
    "Never active",
    "Pending cancellation",
)
_IDLE = ("Who", "Organization", "Assigned by", "Inactive since", "Days", "Pending cancellation")


def seats_section(conn: duckdb.DuckDBPyConnection) -> str:
    """Seat use on each organization's newest snapshot day, and the seats unused longest."""
    totals = run_sql(conn, "page/select_seat_totals.sql")
    if not totals:
        return ""
    rows: list[tuple[str, list[Cell]]] = [
        (
            'class="seat-row"',
            [
                (escape(org), ""),
                (str(day), ""),
                (f"{seats:,}", "num"),
                (f"{active_7d:,}", "num"),
                (f"{active_30d:,}", "num"),
                (f"{inactive:,}", "num"),
                (f"{never:,}", "num"),
                (f"{pending:,}", "num"),
            ],
        )
        for org, day, seats, active_7d, active_30d, inactive, never, pending in totals
    ]
    idle: list[tuple[str, list[Cell]]] = [
        (
            'class="inactive-seat"',
            [
                (escape(login), ""),
                (escape(org), ""),
                (escape(team), ""),
                ("never active" if never else str(since), ""),
                (f"{days:,}", "num"),
                (str(pending or ""), ""),
            ],
        )
        for org, login, team, since, days, never, pending in run_sql(conn, "page/select_inactive_seats.sql")
    ]
    unused = table(headings=_IDLE, rows=idle, caption="<strong>Unused longest</strong> · candidates for clean-up")
    return (
        '<section class="card" id="seats"><h2>Seats</h2>'
        '<p class="lead">The newest seat snapshot of each organization. Active: any assistant activity in the '
        "last 7 or 30 days before the snapshot day; inactive includes the never active.</p>"
        f"{table(headings=_TOTALS, rows=rows)}{unused}</section>"
    )
