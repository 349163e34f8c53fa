"""Charts as inline SVG text: pure functions of the numbers, no I/O, no JavaScript."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date, timedelta
from html import escape

PALETTE = ("#2563eb", "#db2777", "#059669", "#d97706", "#7c3aed", "#0891b2", "#dc2626", "#4d7c0f", "#9333ea", "#475569")
_GAP_FILL = "#e5e7eb"
_AXIS = "#9ca3af"
_TEXT = "#374151"


@dataclass(frozen=True)
class Series:
    name: str
    color: str
    values: Mapping[date, float | None]


def _nice_max(value: float) -> float:
    if value <= 0:
        return 1.0
    exponent = 10 ** math.floor(math.log10(value))
    for step in (1, 2, 2.5, 5, 10):
        if value <= step * exponent:
            return step * exponent
    return 10 * exponent


def _fmt_number(value: float) -> str:
    if value >= 1_000_000:
        return f"{value / 1_000_000:.1f}M"
    if value >= 10_000:
        return f"{value / 1000:.0f}k"
    if value >= 1000:
        return f"{value / 1000:.1f}k"
    return f"{value:.0f}" if value == int(value) else f"{value:.2f}"


def line_chart(
    *,
    title: str,
    days: Sequence[date],
    series: Sequence[Series],
    gaps: frozenset[date] = frozenset(),
    gap_label: str = "no data reported",
    y_format: Callable[[float], str] = _fmt_number,
    y_max: float | None = None,
    width: int = 560,
    height: int = 260,
) -> str:
    """A daily line chart; None values break the line, `gaps` days are shaded and labelled."""
    left, right, top, bottom = 48, 16, 34, 56
    plot_w, plot_h = width - left - right, height - top - bottom
    numbers = [v for s in series for v in s.values.values() if v is not None]
    top_value = y_max if y_max is not None else _nice_max(max(numbers, default=0))
    step = plot_w / max(len(days) - 1, 1)
    x_of = {day: left + i * step for i, day in enumerate(days)}

    def y_of(value: float) -> float:
        return top + plot_h - (value / top_value) * plot_h

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="chart" viewBox="0 0 {width} {height}" '
        f'role="img" aria-label="{escape(title)}">',
        f'<text x="{left}" y="18" class="chart-title" fill="{_TEXT}" font-size="14" font-weight="600">{escape(title)}</text>',
    ]
    band = max(step, 3)
    for day in sorted(gaps & set(days)):
        parts.append(
            f'<rect class="gap" x="{x_of[day] - band / 2:.1f}" y="{top}" width="{band:.1f}" height="{plot_h}" '
            f'fill="{_GAP_FILL}"><title>{day}: {escape(gap_label)}</title></rect>'
        )
    for i in range(5):
        value = top_value * i / 4
        y = y_of(value)
        parts.append(f'<line x1="{left}" x2="{width - right}" y1="{y:.1f}" y2="{y:.1f}" stroke="#f1f5f9"/>')
        parts.append(
            f'<text x="{left - 6}" y="{y + 4:.1f}" text-anchor="end" font-size="11" fill="{_AXIS}">{y_format(value)}</text>'
        )
    parts.append(f'<line x1="{left}" x2="{width - right}" y1="{top + plot_h}" y2="{top + plot_h}" stroke="{_AXIS}"/>')
    label_every = max(1, math.ceil(len(days) / 8))
    for i, day in enumerate(days):
        if i % label_every == 0:
            parts.append(
                f'<text x="{x_of[day]:.1f}" y="{top + plot_h + 16}" text-anchor="middle" font-size="11" '
                f'fill="{_AXIS}">{day:%b %d}</text>'
            )
    for s in series:
        for run in _runs(days, s.values):
            points = " ".join(f"{x_of[d]:.1f},{y_of(v):.1f}" for d, v in run)
            if len(run) > 1:
                parts.append(
                    f'<polyline class="series" data-series="{escape(s.name)}" points="{points}" fill="none" '
                    f'stroke="{s.color}" stroke-width="2" stroke-linejoin="round" stroke-linecap="round"/>'
                )
            for d, v in run:
                parts.append(
                    f'<circle cx="{x_of[d]:.1f}" cy="{y_of(v):.1f}" r="2.5" fill="{s.color}">'
                    f"<title>{escape(s.name)}, {d}: {y_format(v)}</title></circle>"
                )
    parts.append(_legend(series=series, gaps=bool(gaps & set(days)), gap_label=gap_label, x=left, y=height - 14))
    parts.append("</svg>")
    return "".join(parts)


def _runs(days: Sequence[date], values: Mapping[date, float | None]) -> list[list[tuple[date, float]]]:
    runs: list[list[tuple[date, float]]] = [[]]
    for day in days:
        value = values.get(day)
        if value is None:
            if runs[-1]:
                runs.append([])
        else:
            runs[-1].append((day, value))
    return [run for run in runs if run]


def _legend(*, series: Sequence[Series], gaps: bool, gap_label: str, x: int, y: int) -> str:
    parts = ['<g class="legend">']
    cursor = x
    for s in series:
        parts.append(f'<rect x="{cursor}" y="{y - 9}" width="10" height="10" rx="2" fill="{s.color}"/>')
        parts.append(f'<text x="{cursor + 14}" y="{y}" font-size="11" fill="{_TEXT}">{escape(s.name)}</text>')
        cursor += 22 + 6.2 * len(s.name)
    if gaps:
        parts.append(f'<rect x="{cursor}" y="{y - 9}" width="10" height="10" fill="{_GAP_FILL}"/>')
        parts.append(f'<text x="{cursor + 14}" y="{y}" font-size="11" fill="{_AXIS}">{escape(gap_label)}</text>')
    parts.append("</g>")
    return "".join(parts)


@dataclass(frozen=True)
class CalendarDay:
    day: date
    status: str
    value: float | None
    note: str


_STATUS_FILL = {"no agent array": "#d1d5db", "user level only": "#fde68a", "no report": "#ffffff"}


def coverage_calendar(*, title: str, days: Sequence[CalendarDay]) -> str:
    """A week-by-weekday grid: green by agent job starts, grey without agent array, white without report."""
    if not days:
        return ""
    cell, gap, left, top = 15, 3, 34, 40
    first = days[0].day - timedelta(days=days[0].day.weekday())
    weeks = (days[-1].day - first).days // 7 + 1
    width, height = left + weeks * (cell + gap) + 12, top + 7 * (cell + gap) + 34
    busiest = max((d.value for d in days if d.value), default=1) or 1
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="calendar" viewBox="0 0 {width} {height}" width="{width}" '
        f'role="img" aria-label="{escape(title)}">',
        f'<text x="0" y="16" font-size="13" font-weight="600" fill="{_TEXT}">{escape(title)}</text>',
    ]
    for row, name in ((0, "Mon"), (2, "Wed"), (4, "Fri"), (6, "Sun")):
        parts.append(f'<text x="0" y="{top + row * (cell + gap) + 11}" font-size="10" fill="{_AXIS}">{name}</text>')
    month = None
    for d in days:
        col, row = (d.day - first).days // 7, d.day.weekday()
        x, y = left + col * (cell + gap), top + row * (cell + gap)
        if d.day.month != month and row < 7:
            month = d.day.month
            parts.append(f'<text x="{x}" y="{top - 6}" font-size="10" fill="{_AXIS}">{d.day:%b}</text>')
        if d.status == "agents reported":
            share = (d.value or 0) / busiest
            fill = _green(share)
        else:
            fill = _STATUS_FILL.get(d.status, "#ffffff")
        parts.append(
            f'<rect class="day" data-status="{escape(d.status)}" x="{x}" y="{y}" width="{cell}" height="{cell}" rx="3" '
            f'fill="{fill}" stroke="{"#f87171" if d.status == "no report" else "#e5e7eb"}">'
            f"<title>{d.day:%a %Y-%m-%d}: {escape(d.note)}</title></rect>"
        )
    legend_y = height - 10
    items = [("agents reported", _green(0.8)), ("no agent array (gap, not 0)", _STATUS_FILL["no agent array"]),
             ("user level only", _STATUS_FILL["user level only"]), ("no report", "#ffffff")]
    cursor = 0
    for label, fill in items:
        stroke = "#f87171" if label == "no report" else "#e5e7eb"
        parts.append(f'<rect x="{cursor}" y="{legend_y - 10}" width="11" height="11" rx="2" fill="{fill}" stroke="{stroke}"/>')
        parts.append(f'<text x="{cursor + 15}" y="{legend_y}" font-size="10" fill="{_TEXT}">{escape(label)}</text>')
        cursor += 26 + int(5.6 * len(label))
    parts.append("</svg>")
    return "".join(parts)


def _green(share: float) -> str:
    # From a pale to a deep green: busier days read darker at a glance.
    low, high = (209, 250, 229), (4, 120, 87)
    share = min(max(share, 0.0), 1.0) * 0.85 + 0.15
    r, g, b = (round(lo + (hi - lo) * share) for lo, hi in zip(low, high))
    return f"#{r:02x}{g:02x}{b:02x}"


def spark_bar(*, current: float | None, previous: float | None, scale: float, color: str) -> str:
    """Two thin bars (this period over the previous) for a table cell."""
    width = 120

    def bar(value: float | None, y: int, fill: str, label: str) -> str:
        length = 0 if not value or scale <= 0 else max(1.5, width * value / scale)
        return f'<rect x="0" y="{y}" width="{length:.1f}" height="7" rx="2" fill="{fill}"><title>{label}</title></rect>'

    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" class="spark" viewBox="0 0 {width} 18" width="{width}" height="18">'
        + bar(current, 1, color, f"this period: {_fmt_number(current or 0)}")
        + bar(previous, 10, "#cbd5e1", f"previous period: {_fmt_number(previous or 0)}")
        + "</svg>"
    )
