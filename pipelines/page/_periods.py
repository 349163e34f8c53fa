"""The page's headline tiles and period-over-period tables, from bi.agent_usage_periods.

Every comparison is a per-day rate over the final days that carried agent data (a day without
the array is a gap, a provisional day is still filling in), called by the view's one change
rule (sql/views/_change_rule.sql): a change only beyond the day-to-day noise, none on fewer
days a period than the rule's minimum.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from datetime import date
from html import escape
from typing import Any

from pipelines.page._change import Change
from pipelines.page._svg import spark_bar
from pipelines.page._table import Cell, table


@dataclass(frozen=True)
class PeriodRow:
    """One row of page/select_agent_periods.sql."""

    period_index: int
    period_start: date
    period_end: date
    agent_id: str
    agent_name: str
    report_days: int
    agent_data_days: int
    provisional_days: int
    compared_days: int
    previous_compared_days: int | None
    agent_job_starts: int | None
    job_starts_per_day: float | None
    previous_job_starts_per_day: float | None
    agent_users: int | None
    users_per_day: float | None
    previous_users_per_day: float | None
    comparable: bool
    job_starts_per_day_change: float | None
    change: str | None
    change_low: float | None  # the change's 95% interval, as a share of the previous rate
    change_high: float | None
    min_compared_days: int  # the rule's minimum of compared days a period
    user_days: int  # days of the period with a user-level report: what its users are counted from


def period_rows(rows: list[tuple[Any, ...]]) -> list[PeriodRow]:
    return [PeriodRow(*row) for row in rows]


def _days(n: int | None, what: str = "day") -> str:
    return f"{n or 0} {what}{'' if n == 1 else 's'}"


def _rate(value: float | None) -> str:
    return "—" if value is None else f"{value:,.1f}"


def _num(value: int | None) -> str:
    return "—" if value is None else f"{value:,}"


def _why_no_comparison(compared: int, previous: int | None, minimum: int) -> str:
    if previous is None:
        return "no previous period to compare with"
    short = [f"this period has {_days(compared, 'final day')}"] if compared < minimum else []
    if previous < minimum:
        short.append(f"the previous period has {_days(previous, 'final day')}")
    return f"no comparison: {' and '.join(short)} with agent data, fewer than {minimum}"


def landed(days: int, span: int = 28) -> str:
    """How many of a period's days landed, said whenever fewer than it spans."""
    return "" if days >= span else f"{days} of {span} days landed"


@dataclass(frozen=True)
class TotalChange:
    """The row of page/select_agent_total_change.sql: every agent app's job starts together."""

    per_day: float | None
    previous_per_day: float | None
    compared_days: int
    previous_compared_days: int | None
    change: str | None
    change_low: float | None
    change_high: float | None


def summary_section(rows: list[PeriodRow], total: TotalChange, *, scope_label: str) -> str:
    """The headline tiles of the last 28 days of one scope, which the tiles name. The job-start
    tile's change is called by the same rule, and said the same way, as the table's rows."""
    latest = [r for r in rows if r.period_index == 0]
    if not latest:
        return ""
    first = latest[0]
    active = [r for r in latest if (r.agent_job_starts or 0) > 0]
    job_starts = sum(r.agent_job_starts or 0 for r in latest)
    top = max(active, key=lambda r: r.agent_job_starts or 0, default=None)
    users = max((r.agent_users or 0 for r in latest), default=0)
    why = _why_no_comparison(total.compared_days, total.previous_compared_days, first.min_compared_days)
    change = Change(total.change, total.per_day, total.previous_per_day, total.change_low, total.change_high, why)
    basis = f"over {_days(total.compared_days, 'final day')} with agent data" + (
        f" and the previous 28 days' {total.previous_compared_days}" if total.previous_compared_days else ""
    )
    tiles = [
        ("Agent apps in use", f"{len(active)}", f"of {len(latest)} seen"),
        (
            "Agent job starts",
            f"{job_starts:,}",
            f'{change.badge()} <span class="change-detail">{change.detail("a day")}</span>; {basis}',
        ),
        (
            "Most used agent",
            escape(top.agent_name) if top else "—",
            f"{top.agent_job_starts:,} job starts" if top and top.agent_job_starts else "",
        ),
        (
            "Largest user base",
            f"{users:,}",
            "users of a single agent app"
            + (
                f' <strong class="short-period">from only {landed(first.user_days)}</strong>'
                if landed(first.user_days)
                else ""
            ),
        ),
    ]
    cells = "".join(
        f'<div class="tile"><div class="tile-label">{label}</div><div class="tile-value">{value}</div>'
        f'<div class="tile-note">{note}</div></div>'
        for label, value, note in tiles
    )
    provisional = (
        f" {_days(first.provisional_days)} still provisional (fetched before final): shaded below, never compared."
        if first.provisional_days
        else ""
    )
    short = landed(first.report_days)
    if short:
        short = f' <strong class="short-period">Only {short}</strong>: every figure covers those days alone.'

    return (
        f'<p class="headline-scope">Headline figures of <strong>{escape(scope_label)}</strong>, '
        f"last 28 days: {first.period_start} to {first.period_end}.{short}{provisional}</p>"
        f'<section class="tiles" aria-label="summary of {escape(scope_label)}">{cells}</section>'
    )


_HEADINGS = (
    "Agent app",
    "Job starts",
    "Job starts a day",
    "This period over the previous",
    "Users",
    "Users a day",
    "Change in job starts a day",
)


def periods_section(rows: list[PeriodRow], *, colors: dict[str, tuple[str, str]]) -> str:
    """One table per 28-day period: per-day rates against the previous period, with day counts."""
    if not rows:
        return ""
    scale = max((max(r.job_starts_per_day or 0, r.previous_job_starts_per_day or 0) for r in rows), default=0)
    groups: dict[int, list[PeriodRow]] = defaultdict(list)
    for row in rows:
        groups[row.period_index].append(row)
    tables = []
    for index in sorted(groups):
        group = groups[index]
        first = group[0]
        short = landed(first.report_days)
        caption = (
            f"{first.period_start} to {first.period_end} · "
            + (
                f'<strong class="short-period">only {short}</strong>'
                if short
                else f"{_days(first.report_days, 'reported day')}"
            )
            + f' · <span class="day-count">{first.agent_data_days} with agent data</span> · '
            f'<span class="day-count">{first.provisional_days} provisional</span> · '
            f'<span class="day-count">compared on {_days(first.compared_days, "final day")}</span>'
        )
        if first.previous_compared_days is not None:
            caption += f" · previous period: {_days(first.previous_compared_days, 'final day')} with agent data"
        if landed(first.user_days):
            caption += f' · <strong class="short-period">users from only {landed(first.user_days)}</strong>'

        why = _why_no_comparison(first.compared_days, first.previous_compared_days, first.min_compared_days)
        body: list[tuple[str, list[Cell]]] = []
        for r in group:
            color = colors.get(r.agent_id, (r.agent_name, "#64748b"))[1]
            change = Change(
                r.change if r.comparable else None,
                r.job_starts_per_day,
                r.previous_job_starts_per_day,
                r.change_low,
                r.change_high,
                why,
            )
            bar = spark_bar(
                current=r.job_starts_per_day,
                previous=r.previous_job_starts_per_day,
                scale=scale,
                color=color,
                unit=" job starts a day",
            )
            body.append(
                (
                    f'class="period-row" data-agent-id="{escape(r.agent_id)}"',
                    [
                        (f'<span class="swatch" style="background:{color}"></span>{escape(r.agent_name)}', ""),
                        (_num(r.agent_job_starts), "num"),
                        (
                            f'{_rate(r.job_starts_per_day)} <span class="muted">('
                            f"{_rate(r.previous_job_starts_per_day)} before)</span>",
                            "num",
                        ),
                        (bar, ""),
                        (_num(r.agent_users), "num"),
                        (
                            f'{_rate(r.users_per_day)} <span class="muted">('
                            f"{_rate(r.previous_users_per_day)} before)</span>",
                            "num",
                        ),
                        (change.verdict(), "verdict"),
                    ],
                )
            )
        title = "Last 28 days" if index == 0 else f"{index * 28}\u2013{index * 28 + 27} days before the newest day"
        tables.append(table(headings=_HEADINGS, rows=body, caption=f"<strong>{title}</strong> · {caption}"))
    return (
        '<section class="card"><h2>Period over period</h2>'
        '<p class="lead">Each 28-day period against the one before, per agent app, as rates per final day that '
        "carried agent data: a day without agent data is a gap, not a zero, and a provisional day is still "
        "filling in, so neither counts. The change is that of the rate a day against the previous period's rate "
        "a day (not a change every day). It is called grown or shrunk only when its 95% interval excludes no "
        "change; else steady, whatever its sign. None is called unless both periods have "
        f"{rows[0].min_compared_days} such days. Job starts and users are the period's totals (users "
        "distinct); the bars compare job starts a day. “—” means no agent data.</p>"
        f"{''.join(tables)}</section>"
    )
