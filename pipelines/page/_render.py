"""The page: reads the bi.* views, lays out the charts and tables as one HTML file.

Longer than 300 lines by its stylesheet (40 lines): the page is one self-contained file.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from html import escape
from typing import Any

import duckdb

from pipelines.page._document import page_document
from pipelines.page._seats import seats_section
from pipelines.page._svg import PALETTE, CoverageCell, Series, coverage_calendar, line_chart, spark_bar
from pipelines.page._teams import teams_section
from pipelines.warehouse.sql import run_sql

_Row = tuple[Any, ...]  # one row of a page/*.sql query
_CHANGE_BADGE = {
    "new": ("new", "badge-new"),
    "grown": ("▲ grown", "badge-up"),
    "shrunk": ("▼ shrunk", "badge-down"),
    "gone": ("gone", "badge-gone"),
    "unchanged": ("= unchanged", "badge-flat"),
}


@dataclass(frozen=True)
class _Scope:
    scope: str
    name: str
    first_day: date
    last_day: date

    @property
    def label(self) -> str:
        return f"{self.scope} {self.name}"


def render_page(conn: duckdb.DuckDBPyConnection, *, generated_at: datetime | None = None) -> str:
    """The whole page as HTML text, from the bi.* views of `conn`."""
    scopes = [_Scope(*row) for row in run_sql(conn, "page/select_report_scopes.sql")]
    generated = (generated_at or datetime.now(UTC)).strftime("%Y-%m-%d %H:%M UTC")
    if not scopes:
        body = (
            '<section class="card"><h2>No reports yet</h2><p>Run <code>metrics-etl demo</code> or '
            "<code>metrics-etl run</code>, then write this report again.</p></section>"
        )
        return page_document(title="Assistant agent adoption", subtitle=f"generated {generated}", body=body)
    main = scopes[0]
    agent_rows = run_sql(conn, "page/select_agent_days.sql", scope=main.scope, scope_name=main.name)
    period_rows = run_sql(conn, "page/select_agent_periods.sql", scope=main.scope, scope_name=main.name)
    coverage_rows = run_sql(conn, "page/select_coverage_days.sql")
    assistant_rows = run_sql(conn, "page/select_assistant_days.sql", scope=main.scope, scope_name=main.name)

    days = [main.first_day + timedelta(days=n) for n in range((main.last_day - main.first_day).days + 1)]
    colors = _agent_colors(agent_rows)
    gaps = frozenset(
        row[2] for row in coverage_rows if (row[0], row[1]) == (main.scope, main.name) and row[3] != "agents reported"
    )
    body = "".join(
        [
            _summary(period_rows=period_rows, main=main),
            _adoption(agent_rows=agent_rows, days=days, colors=colors, gaps=gaps),
            _periods(period_rows=period_rows, colors=colors),
            _coverage(coverage_rows=coverage_rows, scopes=scopes),
            _assistant(assistant_rows=assistant_rows, days=days),
            teams_section(conn, scope=main.scope, scope_name=main.name),
            seats_section(conn),
        ]
    )
    others = ", ".join(s.label for s in scopes[1:])
    subtitle = f"{escape(main.label)} · {main.first_day} to {main.last_day} · generated {generated}"
    if others:
        subtitle += f" · coverage also shown for {escape(others)}"
    return page_document(title="Assistant agent adoption", subtitle=subtitle, body=body)


def _agent_colors(agent_rows: list[_Row]) -> dict[str, tuple[str, str]]:
    """agent_id → (latest label, colour), busiest agent first so the palette's strongest colours lead."""
    totals: dict[str, int] = defaultdict(int)
    names: dict[str, str] = {}
    for _, agent_id, name, job_starts, _users in agent_rows:
        totals[agent_id] += job_starts or 0
        names[agent_id] = name
    ordered = sorted(totals, key=lambda a: (-totals[a], a))
    return {a: (names[a], PALETTE[i % len(PALETTE)]) for i, a in enumerate(ordered)}


def _summary(*, period_rows: list[_Row], main: _Scope) -> str:
    latest = [r for r in period_rows if r[0] == 0]
    if not latest:
        return ""
    start, end = latest[0][1], latest[0][2]
    active = [r for r in latest if (r[7] or 0) > 0]
    job_starts = sum(r[7] or 0 for r in latest)
    previous = sum(r[8] or 0 for r in latest) if any(r[8] is not None for r in latest) else None
    days, previous_days = latest[0][5] or 0, latest[0][6] or 0
    top = max(active, key=lambda r: r[7], default=None)
    users = max((r[9] or 0 for r in latest), default=0)
    delta = ""
    if previous and days and previous_days:
        # Per reported day: the previous period may hold fewer days (history not yet 56 days).
        pct = (job_starts / days - previous / previous_days) / (previous / previous_days) * 100
        basis = "previous 28 days" if days == previous_days else f"previous period, per day ({previous_days} days)"
        delta = f'<span class="{"up" if pct >= 0 else "down"}">{pct:+.0f}% vs {basis}</span>'
    elif previous == 0 and job_starts:
        delta = '<span class="up">new this period</span>'
    tiles = [
        ("Agent apps in use", f"{len(active)}", f"of {len(latest)} seen"),
        ("Agent job starts", f"{job_starts:,}", delta or "no previous period to compare"),
        ("Most used agent", escape(top[4]) if top else "—", f"{top[7]:,} job starts" if top else ""),
        ("Largest user base", f"{users:,}", "users of a single agent app"),
    ]
    cells = "".join(
        f'<div class="tile"><div class="tile-label">{label}</div><div class="tile-value">{value}</div>'
        f'<div class="tile-note">{note}</div></div>'
        for label, value, note in tiles
    )
    return (
        f'<section class="tiles" aria-label="summary">{cells}</section>'
        f'<p class="period-note">Last 28-day period: {start} to {end} ({escape(main.label)}).</p>'
    )


def _adoption(
    *, agent_rows: list[_Row], days: list[date], colors: dict[str, tuple[str, str]], gaps: frozenset[date]
) -> str:
    job_starts: dict[str, dict[date, float | None]] = defaultdict(dict)
    users: dict[str, dict[date, float | None]] = defaultdict(dict)
    for day, agent_id, _name, starts, n_users in agent_rows:
        job_starts[agent_id][day] = starts
        users[agent_id][day] = n_users
    for agent_id in colors:
        for day in days:
            # A reported day without this agent is a real zero; a gap day stays empty.
            if day not in gaps:
                job_starts[agent_id].setdefault(day, 0)
                users[agent_id].setdefault(day, 0)
    starts_chart = line_chart(
        title="Agent job starts per day",
        days=days,
        series=[Series(name, color, job_starts[a]) for a, (name, color) in colors.items()],
        gaps=gaps,
        gap_label="no agent data (gap, not zero)",
    )
    users_chart = line_chart(
        title="Users per agent app per day",
        days=days,
        series=[Series(name, color, users[a]) for a, (name, color) in colors.items()],
        gaps=gaps,
        gap_label="no agent data (gap, not zero)",
    )
    return (
        '<section class="card"><h2>Agent adoption over time</h2>'
        '<p class="lead">Third-party agent apps by <code>agent_id</code>, labelled with their latest name. '
        "Job starts come from the aggregate report, users from the user-level report. "
        "Shaded days carried no agent data: a gap, not a zero.</p>"
        f'<div class="grid2"><figure>{starts_chart}</figure><figure>{users_chart}</figure></div></section>'
    )


def _periods(*, period_rows: list[_Row], colors: dict[str, tuple[str, str]]) -> str:
    if not period_rows:
        return ""
    scale = max((max(r[7] or 0, r[8] or 0) for r in period_rows), default=0)
    groups: dict[int, list[_Row]] = defaultdict(list)
    for row in period_rows:
        groups[row[0]].append(row)
    tables = []
    for index in sorted(groups):
        rows = groups[index]
        start, end, report_days, previous_days = rows[0][1], rows[0][2], rows[0][5], rows[0][6]
        caption = f"{start} to {end} · {report_days} reported day{'s' if report_days != 1 else ''}"
        if previous_days is not None:
            caption += f" · previous period {previous_days} day{'s' if previous_days != 1 else ''}"
        body = []
        for (_i, _s, _e, agent_id, name, _rd, _pd, starts, prev_starts, n_users, prev_users, change) in rows:
            color = colors.get(agent_id, (name, "#64748b"))[1]
            label, css = _CHANGE_BADGE.get(change, ("no comparison", "badge-none"))
            body.append(
                f'<tr class="period-row" data-agent-id="{escape(agent_id)}">'
                f'<td><span class="swatch" style="background:{color}"></span>{escape(name)}</td>'
                f'<td class="num">{_num(starts)}</td><td class="num muted">{_num(prev_starts)}</td>'
                f"<td>{spark_bar(current=starts, previous=prev_starts, scale=scale, color=color)}</td>"
                f'<td class="num">{_num(n_users)}</td><td class="num muted">{_num(prev_users)}</td>'
                f'<td><span class="badge {css}">{label}</span></td></tr>'
            )
        title = "Last 28 days" if index == 0 else f"{index * 28}\u2013{index * 28 + 27} days before the newest day"
        tables.append(
            f'<table class="periods"><caption><strong>{title}</strong> · {caption}</caption>'
            "<thead><tr><th>Agent app</th><th>Job starts</th><th>previous</th><th></th>"
            "<th>Users</th><th>previous</th><th>Change</th></tr></thead>"
            f"<tbody>{''.join(body)}</tbody></table>"
        )
    return (
        '<section class="card"><h2>Period over period</h2>'
        '<p class="lead">Each 28-day period against the one before, per agent app. “—” means no agent data '
        "in that period (or no earlier period to compare with).</p>"
        f"{''.join(tables)}</section>"
    )


def _coverage(*, coverage_rows: list[_Row], scopes: list[_Scope]) -> str:
    aggregate: dict[tuple[str, str], dict[date, CoverageCell]] = defaultdict(dict)
    users: dict[tuple[str, str], dict[date, CoverageCell]] = defaultdict(dict)
    for scope, name, day, status, starts, user_records, users_with_array in coverage_rows:
        key = (scope, name)
        if status == "agents reported":
            aggregate[key][day] = CoverageCell(day, "agents", starts, f"agent array, {starts:,} agent job starts")
        elif status == "no agent array":
            aggregate[key][day] = CoverageCell(day, "no array", None, "report without agent array (gap, not zero)")
        if user_records is None:
            continue
        if users_with_array:
            note = f"{users_with_array:,} of {user_records:,} users carried the agent array"
            users[key][day] = CoverageCell(day, "agents", users_with_array, note)
        else:
            users[key][day] = CoverageCell(day, "no array", None, f"{user_records:,} users, none with agent array")
    first = min(s.first_day for s in scopes)
    last = max(s.last_day for s in scopes)
    days = [first + timedelta(days=n) for n in range((last - first).days + 1)]
    rows = []
    for s in scopes:
        rows.append((f"{s.label} · aggregate", aggregate[(s.scope, s.name)]))
        rows.append((f"{s.label} · user level", users[(s.scope, s.name)]))
    calendar = coverage_calendar(title="Report coverage", days=days, rows=rows)
    missing = sum(1 for r in coverage_rows if r[3] != "agents reported")
    return (
        '<section class="card"><h2>Report coverage</h2>'
        '<p class="lead">One square per day and report. Green: the report carried the agent array (darker = '
        "more activity). Grey: a report without agent data, which means nothing recognized, not zero. "
        f"{missing} scope-day{'s' if missing != 1 else ''} without agent data in this window.</p>"
        f"<figure>{calendar}</figure></section>"
    )


def _assistant(*, assistant_rows: list[_Row], days: list[date]) -> str:
    if not assistant_rows:
        return ""
    interactions = {r[0]: r[1] for r in assistant_rows}
    active = {r[0]: r[2] for r in assistant_rows}
    rate = {r[0]: (r[3] * 100 if r[3] is not None else None) for r in assistant_rows}
    charts = [
        line_chart(title="Interactions (top-level count)", days=days,
                   series=[Series("user-initiated interactions", "#0f766e", interactions)], width=380, height=220),
        line_chart(title="Daily active users", days=days,
                   series=[Series("daily active users", "#4338ca", active)], width=380, height=220),
        line_chart(title="Acceptance rate", days=days, series=[Series("acceptances / generations", "#b45309", rate)],
                   y_format=lambda v: f"{v:.0f}%", y_max=100, width=380, height=220),
    ]
    figures = "".join(f"<figure>{c}</figure>" for c in charts)
    return (
        '<section class="card"><h2>Assistant activity (top level)</h2>'
        '<p class="lead">The assistant\'s own top-level measures. The interaction count here is a different '
        "measure from agent job starts above: the two are never added together.</p>"
        f'<div class="grid3">{figures}</div></section>'
    )


def _num(value: int | None) -> str:
    return "—" if value is None else f"{value:,}"
