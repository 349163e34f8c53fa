"""The page at the aggregate privacy tier, for a wide audience: read from the aggregate tier's
own serving database (docs/privacy.md), never from the full one, so it shows exactly what the
tier publishes: nobody named, no figure about fewer than k people (a hidden row says so, with no
figure), and no change called (the tier publishes none: a previous period may be hidden)."""

from __future__ import annotations

from collections import defaultdict
from datetime import date, datetime, timedelta
from html import escape
from typing import Any

import duckdb

from pipelines.page._axis import time_axis
from pipelines.page._chart import line_chart
from pipelines.page._document import page_document
from pipelines.page._svg import PALETTE, Series
from pipelines.page._table import Cell, table
from pipelines.warehouse.sql import run_sql

_TITLE = "Assistant agent adoption"
_HIDDEN = '<span class="muted">hidden: could tell of fewer than k people</span>'


def _figures(values: list[tuple[Any, int]], hidden: bool) -> list[Cell]:
    """A row's figure cells (value, digits): a hidden row says why once, its other cells empty."""
    if hidden:
        return [(_HIDDEN, "")] + [("", "num")] * (len(values) - 1)
    return [("—" if v is None else f"{v:,.{digits}f}", "num") for v, digits in values]


def render_aggregate_page(conn: duckdb.DuckDBPyConnection, *, generated: datetime) -> str:
    """The page from the aggregate tier's views (`conn`: its serving database)."""
    stamp = generated.strftime("%Y-%m-%d %H:%M UTC")
    scopes = run_sql(conn, "page/aggregate/select_scopes.sql")
    if not scopes:
        body = (
            '<section class="card"><h2>No reports yet</h2><p>Run <code>metrics-etl run</code>, then write this '
            "report again.</p></section>"
        )
        return page_document(title=_TITLE, subtitle=f"aggregate tier · generated {stamp}", body=body)
    scope, name, first_day, last_day = scopes[0]
    days = [first_day + timedelta(days=n) for n in range((last_day - first_day).days + 1)]
    agent_days = run_sql(conn, "page/aggregate/select_agent_days.sql", scope=scope, scope_name=name)
    colors = {a: PALETTE[i % len(PALETTE)] for i, a in enumerate(dict.fromkeys(r[1] for r in agent_days))}
    names = {r[1]: r[2] for r in agent_days}
    provisional = frozenset(
        r[0]
        for r in run_sql(conn, "page/aggregate/select_scope_days.sql", scope=scope, scope_name=name)
        if r[3] is False
    )
    axis = time_axis(days, provisional=provisional)
    body = "".join(
        [
            '<p class="headline-scope">This page follows the <strong>aggregate privacy tier</strong>: it names '
            "nobody and shows no figure that could tell of fewer than k people; such a figure is hidden and says "
            "so. No change between periods is called here, as the tier publishes none. Figures of "
            f"<strong>{escape(scope)} {escape(name)}</strong>.</p>",
            _adoption(agent_days, axis=axis, colors=colors, names=names),
            _periods(conn, scope=scope, name=name),
            _activity(conn, scope=scope, name=name, axis=axis),
            _teams(conn, scope=scope, name=name),
            _cost(conn),
        ]
    )
    subtitle = f"{escape(scope)} {escape(name)} · {first_day} to {last_day} · aggregate tier · generated {stamp}"
    return page_document(title=_TITLE, subtitle=subtitle, body=body)


def _adoption(rows: list[tuple[Any, ...]], *, axis: Any, colors: dict[str, str], names: dict[str, str]) -> str:
    starts: dict[str, dict[date, float | None]] = defaultdict(dict)
    for day, agent_id, _name, job_starts, _users, _hidden in rows:
        starts[agent_id][day] = job_starts  # a hidden day is NULL: a break in the line, never a zero
    chart = line_chart(
        title=axis.label("Agent job starts per day"),
        days=axis.points,
        series=[Series(names[a], c, axis.mean(starts[a])) for a, c in colors.items()],
        provisional=axis.provisional,
    )
    return (
        '<section class="card"><h2>Agent adoption over time</h2><p class="lead">Third-party agent apps by '
        "<code>agent_id</code>. A break in a line is a day hidden (fewer than k users of the app) or without "
        f"agent data, never a zero.</p>{chart}</section>"
    )


_PERIOD_HEADINGS = ("Agent app", "Job starts", "Job starts a day", "Users", "Users a day")


def _periods(conn: duckdb.DuckDBPyConnection, *, scope: str, name: str) -> str:
    groups: dict[int, list[tuple[Any, ...]]] = defaultdict(list)
    for row in run_sql(conn, "page/aggregate/select_agent_periods.sql", scope=scope, scope_name=name):
        groups[row[0]].append(row)
    tables = []
    for index, rows in sorted(groups.items()):
        body: list[tuple[str, list[Cell]]] = [
            (
                f'class="period-row" data-agent-id="{escape(agent_id)}"',
                [(escape(agent_name), ""), *_figures([(js, 0), (jpd, 1), (users, 0), (upd, 1)], hidden)],
            )
            for _i, _s, _e, agent_id, agent_name, hidden, js, jpd, users, upd in rows
        ]
        title = "Last 28 days" if index == 0 else "The 28 days before"
        caption = f"<strong>{title}</strong> · {rows[0][1]} to {rows[0][2]}"
        tables.append(table(headings=_PERIOD_HEADINGS, rows=body, caption=caption))
    return (
        '<section class="card"><h2>Period over period</h2><p class="lead">Each agent app over the last two '
        f"28-day periods: totals and rates a day (users distinct over the period).</p>{''.join(tables)}</section>"
    )


def _activity(conn: duckdb.DuckDBPyConnection, *, scope: str, name: str, axis: Any) -> str:
    rows = run_sql(conn, "page/aggregate/select_scope_days.sql", scope=scope, scope_name=name)
    interactions = {r[0]: r[1] for r in rows}
    active = {r[0]: r[2] for r in rows}
    charts = [
        line_chart(
            title=axis.label(title),
            days=axis.points,
            provisional=axis.provisional,
            wide_labels=4,
            series=[Series(label, color, axis.mean(values))],
        )
        for title, label, color, values in (
            ("Interactions (top-level count)", "user-initiated interactions", "#0f766e", interactions),
            ("Daily active users", "daily active users", "#4338ca", active),
        )
    ]
    return (
        '<section class="card"><h2>Assistant activity (top level)</h2><p class="lead">The service\'s own daily '
        f'figures; a day about fewer than k active users is hidden.</p><div class="grid3">{"".join(charts)}'
        "</div></section>"
    )


_TEAM_HEADINGS = ("Team", "Members", "Active users", "Active users a day")


def _teams(conn: duckdb.DuckDBPyConnection, *, scope: str, name: str) -> str:
    rows = run_sql(conn, "page/aggregate/select_team_periods.sql", scope=scope, scope_name=name)
    if not rows:
        return ""
    body: list[tuple[str, list[Cell]]] = [
        ('class="team-row"', [(escape(slug), ""), *_figures([(members, 0), (active, 0), (per_day, 1)], hidden)])
        for slug, hidden, members, active, per_day, _start, _end in rows
    ]
    return (
        f'<section class="card" id="teams"><h2>Teams of {escape(scope)} {escape(name)}</h2>'
        f'<p class="lead">{rows[0][5]} to {rows[0][6]}: members and active users distinct over the period, '
        "active users a day over its final days with team data.</p>"
        f"{table(headings=_TEAM_HEADINGS, rows=body)}</section>"
    )


_COST_HEADINGS = ("Cost center or team", "Scope", "Net")


def _cost(conn: duckdb.DuckDBPyConnection) -> str:
    rows = run_sql(conn, "page/aggregate/select_cost.sql")
    if not rows:
        return ""
    body: list[tuple[str, list[Cell]]] = [
        (
            f'class="cost-row" data-kind="{escape(kind)}"',
            [(f"{escape(kind)}: {escape(name or '')}", ""), (escape(label), ""), *_cost_figure(net, hidden)],
        )
        for kind, label, name, hidden, net, _start, _end in rows
    ]
    return (
        '<section class="card" id="cost"><h2>Cost</h2>'
        f"<p class=\"lead\">{rows[0][5]} to {rows[0][6]}: each cost center's net and each team's net charged back, "
        "in dollars. The whole bill, what could not be allocated and anyone's own cost are not in this tier.</p>"
        f"{table(headings=_COST_HEADINGS, rows=body)}</section>"
    )


def _cost_figure(net: Any, hidden: bool) -> list[Cell]:
    return [(_HIDDEN, "")] if hidden else [(f"${net:,.2f}", "num")]
