"""The page's Cost section: the run summary's cost figures (sql/bi/cost/) as tiles, a chart and tables.

Per scope with billing data: its net cost over the newest 28 days with billing data and the
change a day against the 28 before, called by the one change rule and said as every change on
the page is (_change.Change); each scope's net cost a day as a line (a day of a month the
service has not closed is amber: late usage may still add to it); the cost centers and teams
charged, the budgets of the newest month; and a scope whose billing was refused, said so.
"""

from __future__ import annotations

from collections import defaultdict
from datetime import date, timedelta
from decimal import Decimal
from html import escape
from typing import Any

import duckdb

from pipelines.bi import denied_line, money
from pipelines.page._axis import time_axis
from pipelines.page._change import Change
from pipelines.page._chart import line_chart
from pipelines.page._svg import PALETTE, Series
from pipelines.page._table import Cell, table
from pipelines.warehouse.sql import run_sql

_Row = tuple[Any, ...]
_PERIOD = ("Scope", "Last 28 days", "Net", "Gross", "Included in seats", "Net a day", "Change in net a day")
_CENTERS = ("Cost center", "Net, last 28 days", "Share")
_TEAMS = ("Team", "Rule", "Net, last 28 days", "Share")
_BUDGETS = ("Budget", "Amount", "To date", "Projected at month end", "Stops usage", "Users blocked")


def cost_section(conn: duckdb.DuckDBPyConnection) -> str:
    """The Cost card, or nothing when no scope has billing data and none was refused."""
    periods = run_sql(conn, "bi/cost/select_periods.sql")
    refused = run_sql(conn, "bi/cost/select_denied.sql")
    if not periods and not refused:
        return ""
    centers = _by_scope(run_sql(conn, "bi/cost/select_cost_centers.sql"))
    teams = _by_scope(run_sql(conn, "bi/cost/select_teams.sql"))
    nets = {(row[0], row[1]): row[8] for row in periods}
    parts = [_periods(periods), _chart(run_sql(conn, "page/select_cost_days.sql"))]
    for (scope, name), rows in centers.items():
        parts.append(_centers(scope, name, rows, nets.get((scope, name))))
    for (scope, name), rows in teams.items():
        parts.append(_teams(scope, name, rows, nets.get((scope, name))))
    parts.append(_budgets(run_sql(conn, "bi/cost/select_budgets.sql")))
    parts.extend(
        f'<p class="cost-refused" data-scope="{escape(scope)} {escape(name)}">'
        f"{escape(denied_line(scope, name, *rest))}</p>"
        for scope, name, *rest in refused
    )
    return (
        '<section class="card" id="cost"><h2>Cost</h2>'
        '<p class="lead">What the assistant cost, from the bill (AI credits, and premium requests before June 2026), '
        "to the cent: net is gross less what the seats include. The change is called on the net cost a day against "
        "the 28 days before: grown or shrunk only beyond the day-to-day noise. Amber days belong to a month the "
        "service had not closed: late usage may still add to them. Teams are charged by the cost center they are "
        "in, else by their members' share of the credits (a user on two teams split between them); what cannot be "
        "allocated is its own row, so the rows add up to the bill.</p>"
        f"{''.join(parts)}</section>"
    )


def _by_scope(rows: list[_Row]) -> dict[tuple[str, str], list[_Row]]:
    grouped: dict[tuple[str, str], list[_Row]] = defaultdict(list)
    for scope, name, *rest in rows:
        grouped[(scope, name)].append(tuple(rest))
    return grouped


def _share(part: Decimal, whole: Decimal | None) -> str:
    return f"{part / whole:.0%}" if whole else "—"


def _periods(rows: list[_Row]) -> str:
    if not rows:
        return ""
    body: list[tuple[str, list[Cell]]] = []
    for scope, name, start, end, days, open_days, gross, discount, net, before_days, before_net, least, *call in rows:
        change, low, high = call
        rate = float(net) / days
        before = float(before_net) / before_days if before_days else None
        why = (
            "no comparison: nothing earlier"
            if not before_days
            else f"no comparison: {days} and {before_days} days of billing data, fewer than {least} in a period"
        )
        verdict = Change(change, rate, before, low, high, why)
        rates = f"${rate:,.2f}" + (f' <span class="muted">(${before:,.2f} before)</span>' if before is not None else "")
        span = f"{start} to {end}" + (f' <span class="muted">({open_days} open)</span>' if open_days else "")
        body.append(
            (
                f'class="cost-row" data-scope="{escape(scope)} {escape(name)}" data-net="{net:.2f}"',
                [
                    (f"{escape(scope)} {escape(name)}", ""),
                    (span, ""),
                    (money(net), "num"),
                    (money(gross), "num"),
                    (money(discount), "num"),
                    (rates, "num"),
                    (verdict.verdict(), "verdict"),
                ],
            )
        )
    return table(headings=_PERIOD, rows=body)


def _chart(rows: list[_Row]) -> str:
    if not rows:
        return ""
    first, last = min(r[2] for r in rows), max(r[2] for r in rows)
    days = [first + timedelta(days=n) for n in range((last - first).days + 1)]
    values: dict[tuple[str, str], dict[date, float | None]] = defaultdict(dict)
    for scope, name, day, net, _open in rows:
        values[(scope, name)][day] = float(net)
    for series in values.values():
        for day in days:
            series.setdefault(day, 0.0)  # the bill lists no line for a day nothing was used
    axis = time_axis(days, provisional=[r[2] for r in rows if r[4]])
    return line_chart(
        title=axis.label("Net cost a day"),
        days=axis.points,
        series=[
            Series(f"{scope} {name}", PALETTE[i % len(PALETTE)], axis.mean(values[(scope, name)]))
            for i, (scope, name) in enumerate(values)
        ],
        provisional=axis.provisional,
        provisional_label="a month not closed yet: may still grow",
        y_format=lambda v: f"${v:,.0f}",
    )


def _centers(scope: str, name: str, rows: list[_Row], net: Decimal | None) -> str:
    body: list[tuple[str, list[Cell]]] = [
        (
            f'class="cost-center" data-cost-center="{escape(cid)}"',
            [
                ("in no cost center" if cid == "none" else escape(cname or cid), ""),
                (money(amount), "num"),
                (_share(amount, net), "num"),
            ],
        )
        for cid, cname, amount in rows
    ]
    caption = f"<strong>Cost centers of {escape(scope)} {escape(name)}</strong>"
    return table(headings=_CENTERS, rows=body, caption=caption)


def _teams(scope: str, name: str, rows: list[_Row], net: Decimal | None) -> str:
    body: list[tuple[str, list[Cell]]] = [
        (
            f'class="cost-team" data-team="{escape(team)}"',
            [
                (escape(team) + (f' <span class="muted">({escape(reasons)})</span>' if reasons else ""), ""),
                (escape(rules or ""), ""),
                (money(amount), "num"),
                (_share(amount, net), "num"),
            ],
        )
        for _team_id, team, amount, rules, reasons in rows
    ]
    caption = f"<strong>Charged back to the teams of {escape(scope)} {escape(name)}</strong>"
    return table(headings=_TEAMS, rows=body, caption=caption)


def _budgets(rows: list[_Row]) -> str:
    if not rows:
        return ""
    body: list[tuple[str, list[Cell]]] = []
    for (
        enterprise,
        budget_id,
        _type,
        scope,
        entity,
        sku,
        amount,
        _month,
        consumed,
        projected,
        over,
        stops,
        blocked,
    ) in rows:
        what = " ".join(p for p in ((scope or "").replace("_", " "), entity or budget_id, sku) if p)
        flag = ' <span class="badge badge-down">projected over</span>' if over else ""
        body.append(
            (
                f'class="budget" data-budget-id="{escape(budget_id)}" data-over="{str(bool(over)).lower()}"',
                [
                    (f"{escape(enterprise)}: {escape(what)}{flag}", ""),
                    (money(amount), "num"),
                    (money(consumed), "num"),
                    (f'<span class="{"down" if over else ""}">{money(projected)}</span>', "num"),
                    ("yes" if stops else "no", ""),
                    (f"{blocked or 0:,}", "num"),
                ],
            )
        )
    month = rows[0][7]
    caption = f"<strong>Budgets, {month:%Y-%m}</strong>" if isinstance(month, date) else "<strong>Budgets</strong>"
    return table(headings=_BUDGETS, rows=body, caption=caption + " · those projected over first")
