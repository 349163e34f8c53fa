"""The page: reads the bi.* views, lays out the charts and tables as one HTML file."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from functools import partial
from html import escape
from typing import Any

import duckdb

from pipelines.page._axis import Axis, time_axis
from pipelines.page._chart import line_chart
from pipelines.page._cost import cost_section
from pipelines.page._document import page_document
from pipelines.page._incidents import incidents_section
from pipelines.page._periods import TotalChange, period_rows, periods_section, summary_section
from pipelines.page._repositories import repositories_section
from pipelines.page._seats import seats_section
from pipelines.page._surfaces import surfaces_section
from pipelines.page._svg import PALETTE, CoverageCell, Series, coverage_calendar, coverage_legend
from pipelines.page._teams import teams_section
from pipelines.page._vendors import vendors_section
from pipelines.warehouse.sql import run_sql

_Row = tuple[Any, ...]  # one row of a page/*.sql query


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
    """The whole page as HTML text, from the bi.* views of `conn` (the full tier)."""
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
    periods = period_rows(run_sql(conn, "page/select_agent_periods.sql", scope=main.scope, scope_name=main.name))
    (total,) = run_sql(conn, "page/select_agent_total_change.sql", scope=main.scope, scope_name=main.name)
    coverage_rows = run_sql(conn, "page/select_coverage_days.sql")
    assistant_rows = run_sql(conn, "page/select_assistant_days.sql", scope=main.scope, scope_name=main.name)

    days = [main.first_day + timedelta(days=n) for n in range((main.last_day - main.first_day).days + 1)]
    colors = _agent_colors(agent_rows)
    own = [row for row in coverage_rows if (row[0], row[1]) == (main.scope, main.name)]
    gaps = frozenset(row[2] for row in own if row[3] != "agents reported")
    # A day fetched before it was final is still filling in: shaded, never read as a drop.
    provisional = frozenset(row[2] for row in own if row[7] is False)
    body = "".join(
        [
            summary_section(periods, TotalChange(*total), scope_label=main.label),
            _adoption(
                agent_rows=agent_rows,
                days=days,
                gaps=gaps,
                colors=colors,
                axis=time_axis(days, gaps=gaps, provisional=provisional),
            ),
            periods_section(periods, colors=colors),
            surfaces_section(conn),
            _coverage(coverage_rows=coverage_rows, scopes=scopes),
            incidents_section(conn),
            _assistant(assistant_rows=assistant_rows, axis=time_axis(days, provisional=provisional)),
            teams_section(conn, scope=main.scope, scope_name=main.name),
            cost_section(conn),
            vendors_section(conn, scope=main.scope, scope_name=main.name),
            repositories_section(conn),
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


def _adoption(
    *, agent_rows: list[_Row], days: list[date], gaps: frozenset[date], axis: Axis, colors: dict[str, tuple[str, str]]
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
    charts = [
        line_chart(
            title=axis.label(title),
            days=axis.points,
            series=[Series(name, color, axis.mean(values[a])) for a, (name, color) in colors.items()],
            gaps=axis.gaps,
            gap_label="no agent data (gap, not zero)",
            provisional=axis.provisional,
        )
        for title, values in (("Agent job starts per day", job_starts), ("Users per agent app per day", users))
    ]
    figures = "".join(charts)
    weekly = " Over more than 60 days each point is a week: the mean of its days with data." if axis.weekly else ""
    return (
        '<section class="card"><h2>Agent adoption over time</h2>'
        '<p class="lead">Third-party agent apps by <code>agent_id</code>, labelled with their latest name. '
        "Job starts come from the aggregate report, users from the user-level report. "
        "Grey: no agent data, a gap, not a zero. Amber: provisional, fetched before the day was final "
        f"(three full UTC days after it), still filling in, not a drop.{weekly}</p>"
        f'<div class="grid2">{figures}</div></section>'
    )


def _coverage(*, coverage_rows: list[_Row], scopes: list[_Scope]) -> str:
    aggregate: dict[tuple[str, str], dict[date, CoverageCell]] = defaultdict(dict)
    users: dict[tuple[str, str], dict[date, CoverageCell]] = defaultdict(dict)
    for scope, name, day, status, starts, user_records, users_with_array, final in coverage_rows:
        key, provisional = (scope, name), final is False
        if status == "agents reported":
            aggregate[key][day] = CoverageCell(
                day, "agents", starts, f"agent array, {starts:,} agent job starts", provisional
            )
        elif status == "no agent array":
            aggregate[key][day] = CoverageCell(
                day, "no array", None, "report without agent array (gap, not zero)", provisional
            )
        if user_records is None:
            continue
        if users_with_array:
            note = f"{users_with_array:,} of {user_records:,} users carried the agent array"
            users[key][day] = CoverageCell(day, "agents", users_with_array, note, provisional)
        else:
            users[key][day] = CoverageCell(
                day, "no array", None, f"{user_records:,} users, none with agent array", provisional
            )
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
        "An amber edge: provisional, fetched before the day was final. "
        f"{missing} scope-day{'s' if missing != 1 else ''} without agent data in this window.</p>"
        f"{calendar}{coverage_legend()}</section>"
    )


def _assistant(*, assistant_rows: list[_Row], axis: Axis) -> str:
    if not assistant_rows:
        return ""
    interactions = {r[0]: r[1] for r in assistant_rows}
    active = {r[0]: r[2] for r in assistant_rows}
    rate = {r[0]: (r[3] * 100 if r[3] is not None else None) for r in assistant_rows}
    small = partial(line_chart, days=axis.points, provisional=axis.provisional, wide_labels=4)
    charts = [
        small(
            title=axis.label("Interactions (top-level count)"),
            series=[Series("user-initiated interactions", "#0f766e", axis.mean(interactions))],
        ),
        small(
            title=axis.label("Daily active users"), series=[Series("daily active users", "#4338ca", axis.mean(active))]
        ),
        small(
            title=axis.label("Acceptance rate"),
            series=[Series("acceptances / generations", "#b45309", axis.mean(rate))],
            y_format=lambda v: f"{v:.0f}%",
            y_max=100,
        ),
    ]
    figures = "".join(charts)
    return (
        '<section class="card"><h2>Assistant activity (top level)</h2>'
        '<p class="lead">The assistant\'s own top-level measures. The interaction count here is a different '
        "measure from agent job starts above: the two are never added together. Amber days are provisional.</p>"
        f'<div class="grid3">{figures}</div></section>'
    )
