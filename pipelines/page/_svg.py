"""Charts as inline SVG text: pure functions of the numbers, no I/O, no JavaScript."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from html import escape

PALETTE = ("#2563eb", "#db2777", "#059669", "#d97706", "#7c3aed", "#0891b2", "#dc2626", "#4d7c0f", "#9333ea", "#475569")
_GAP_FILL = "#e5e7eb"
_PROVISIONAL_FILL = "#fde68a"  # amber: a day still filling in, not a drop
_PROVISIONAL_EDGE = "#f59e0b"
_AXIS = "#9ca3af"
_TEXT = "#374151"
# The smallest text a chart draws, in its own units, and the smallest it may render at in CSS px:
# a chart is never drawn narrower than its width times their ratio (its svg's min-width).
_FONT = 12
_READABLE_PX = 11


@dataclass(frozen=True)
class Series:
    name: str
    color: str
    values: Mapping[date, float | None]


def _nice_max(value: float) -> float:
    if value <= 0:
        return 1.0
    exponent: float = 10 ** math.floor(math.log10(value))
    for step in (1, 1.2, 1.6, 2, 2.4, 3, 4, 5, 6, 8, 10):
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
    return f"{value:.0f}" if value >= 10 or value == int(value) else f"{value:.1f}"


def line_chart(
    *,
    title: str,
    days: Sequence[date],
    series: Sequence[Series],
    gaps: frozenset[date] = frozenset(),
    gap_label: str = "no data reported",
    provisional: frozenset[date] = frozenset(),
    provisional_label: str = "provisional: still filling in, not a drop",
    y_format: Callable[[float], str] = _fmt_number,
    y_max: float | None = None,
    width: int = 560,
    height: int = 260,
) -> str:
    """A line chart over days (or weeks); None values break the line, `gaps` points are shaded
    grey and `provisional` points amber, each labelled."""
    left, right, top, bottom = 48, 16, 34, 66
    marks = [(gap_label, _GAP_FILL)] if gaps & set(days) else []
    if provisional & set(days):
        marks.append((provisional_label, _PROVISIONAL_FILL))
    legend = [(s.name, s.color, _TEXT) for s in series] + [(label, fill, _AXIS) for label, fill in marks]
    layout = _legend_layout([name for name, _, _ in legend], x=left, width=width)
    # Room for every legend line past the two the chart is drawn for, below an unchanged plot.
    extra = 16 * max(0, (max((line for _, line in layout), default=0) + 1) - 2)
    height, bottom = height + extra, bottom + extra
    plot_w, plot_h = width - left - right, height - top - bottom
    numbers = [v for s in series for v in s.values.values() if v is not None]
    top_value = y_max if y_max is not None else _nice_max(max(numbers, default=0))
    step = plot_w / max(len(days) - 1, 1)
    x_of = {day: left + i * step for i, day in enumerate(days)}

    def y_of(value: float) -> float:
        return top + plot_h - (value / top_value) * plot_h

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="chart" viewBox="0 0 {width} {height}" '
        f'style="min-width:{math.ceil(width * _READABLE_PX / _FONT)}px" role="img" aria-label="{escape(title)}">',
        f'<text x="{left}" y="18" class="chart-title" fill="{_TEXT}" font-size="14" font-weight="600">'
        f"{escape(title)}</text>",
    ]
    band = max(step, 3)
    for css, fill, label, marked in (
        ("gap", _GAP_FILL, gap_label, gaps), ("provisional", _PROVISIONAL_FILL, provisional_label, provisional)
    ):
        for day in sorted(marked & set(days)):
            parts.append(
                f'<rect class="{css}" x="{x_of[day] - band / 2:.1f}" y="{top}" width="{band:.1f}" height="{plot_h}" '
                f'fill="{fill}"><title>{day}: {escape(label)}</title></rect>'
            )
    for i in range(5):
        value = top_value * i / 4
        y = y_of(value)
        parts.append(f'<line x1="{left}" x2="{width - right}" y1="{y:.1f}" y2="{y:.1f}" stroke="#f1f5f9"/>')
        parts.append(
            f'<text x="{left - 6}" y="{y + 4:.1f}" text-anchor="end" font-size="{_FONT}" fill="{_AXIS}">'
            f"{y_format(value)}</text>"
        )
    parts.append(f'<line x1="{left}" x2="{width - right}" y1="{top + plot_h}" y2="{top + plot_h}" stroke="{_AXIS}"/>')
    # A date label ("Oct 01") takes about 45 units at _FONT: at most one per 56 units of plot.
    label_every = max(1, math.ceil(len(days) / max(1, plot_w // 56)))
    for i, day in enumerate(days):
        if i % label_every == 0:
            parts.append(
                f'<text x="{x_of[day]:.1f}" y="{top + plot_h + 16}" text-anchor="middle" font-size="{_FONT}" '
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
    parts.append(_legend(legend, layout, y=height - 30 - extra))
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


def _legend_layout(names: Sequence[str], *, x: int, width: int) -> list[tuple[float, int]]:
    """Where each legend item goes: (x, line), wrapping at the chart's width."""
    layout = []
    cursor, line = float(x), 0
    for name in names:
        size = 22 + 6.8 * len(name)  # an average character at _FONT
        if cursor + size > width and cursor > x:
            cursor, line = float(x), line + 1
        layout.append((cursor, line))
        cursor += size
    return layout


def _legend(items: Sequence[tuple[str, str, str]], layout: Sequence[tuple[float, int]], *, y: int) -> str:
    parts = ['<g class="legend">']
    for (name, color, ink), (cursor, line) in zip(items, layout, strict=True):
        row_y = y + 16 * line
        parts.append(f'<rect x="{cursor:.0f}" y="{row_y - 9}" width="10" height="10" rx="2" fill="{color}"/>')
        parts.append(f'<text x="{cursor + 14:.0f}" y="{row_y}" font-size="{_FONT}" fill="{ink}">{escape(name)}</text>')
    parts.append("</g>")
    return "".join(parts)


@dataclass(frozen=True)
class CoverageCell:
    day: date
    state: str  # "agents" (the report carried the agent array), "no array", or "no report"
    value: float | None
    note: str
    provisional: bool = False  # fetched before the day was final: still filling in


_STATE_FILL = {"no array": "#d1d5db", "no report": "#ffffff"}


def coverage_calendar(
    *, title: str, days: Sequence[date], rows: Sequence[tuple[str, Mapping[date, CoverageCell]]]
) -> str:
    """One row per scope and level, its label above it, one square per day: green shades by
    activity, grey without agent array, white with a red edge without report; weeks start on
    Monday, marked on top. Its key is `coverage_legend()`."""
    if not days or not rows:
        return ""
    pitch, top, label_h = 12, 36, 18  # a day's column fits its weekday letter at 11 units
    cell = pitch - 3
    row_h = label_h + cell + 8
    width = max(len(days) * pitch, max(7 * len(label) for label, _ in rows)) + 2
    height = top + len(rows) * row_h
    # Never narrower than its own units (11 is its smallest text); wider screens enlarge it a little.
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="calendar" viewBox="0 0 {width} {height}" '
        f'style="min-width:{width}px;max-width:{width * 1.5:.0f}px" role="img" aria-label="{escape(title)}">'
    ]
    for i, day in enumerate(days):
        x = 1 + i * pitch
        if day.weekday() == 0 or (i == 0 and day.weekday() < 4):
            parts.append(f'<text x="{x:.1f}" y="12" font-size="11" fill="{_AXIS}">{day:%b %d}</text>')
            parts.append(f'<line x1="{x - 1.5:.1f}" x2="{x - 1.5:.1f}" y1="16" y2="{height}" stroke="#e5e7eb"/>')
        parts.append(
            f'<text x="{x + cell / 2:.1f}" y="{top - 6}" text-anchor="middle" font-size="11" fill="#9ca3af">'
            f'{"MTWTFSS"[day.weekday()]}</text>'
        )
    for r, (label, cells) in enumerate(rows):
        y = top + r * row_h + label_h
        parts.append(f'<text x="1" y="{y - 5}" font-size="{_FONT}" fill="{_TEXT}">{escape(label)}</text>')
        busiest = max((c.value for c in cells.values() if c.value), default=1) or 1
        for i, day in enumerate(days):
            c = cells.get(day) or CoverageCell(day, "no report", None, "no report")
            fill = _green((c.value or 0) / busiest) if c.state == "agents" else _STATE_FILL[c.state]
            stroke = "#f87171" if c.state == "no report" else _PROVISIONAL_EDGE if c.provisional else "#ffffff"
            note = f"{c.note}; provisional, still filling in" if c.provisional else c.note
            parts.append(
                f'<rect class="day" data-state="{escape(c.state)}" data-provisional="{str(c.provisional).lower()}" '
                f'x="{1 + i * pitch:.1f}" y="{y}" width="{cell:.1f}" height="{cell:.1f}" rx="2" '
                f'fill="{fill}" stroke="{stroke}" stroke-width="{2 if c.provisional else 1}">'
                f"<title>{escape(label)}, {day:%a %Y-%m-%d}: {escape(note)}</title></rect>"
            )
    parts.append("</svg>")
    return "".join(parts)


def coverage_legend() -> str:
    """The calendar's key as HTML, so it wraps on a narrow screen instead of shrinking."""
    items = [("agent array reported (darker = more activity)", _green(0.8), _green(0.8)),
             ("report without agent array: a gap, not zero", _STATE_FILL["no array"], _STATE_FILL["no array"]),
             ("no report", "#ffffff", "#f87171"),
             ("provisional: still filling in", "#ffffff", _PROVISIONAL_EDGE)]
    return '<ul class="legend">' + "".join(
        f'<li><span class="swatch" style="background:{fill};border-color:{edge}"></span>{escape(text)}</li>'
        for text, fill, edge in items
    ) + "</ul>"


def _green(share: float) -> str:
    # From a pale to a deep green: busier days read darker at a glance.
    low, high = (209, 250, 229), (4, 120, 87)
    share = min(max(share, 0.0), 1.0) * 0.85 + 0.15
    r, g, b = (round(lo + (hi - lo) * share) for lo, hi in zip(low, high, strict=True))
    return f"#{r:02x}{g:02x}{b:02x}"


def spark_bar(*, current: float | None, previous: float | None, scale: float, color: str, unit: str = "") -> str:
    """Two thin bars (this period over the previous) for a table cell; `unit` names what they measure."""
    width = 120

    def bar(value: float | None, y: int, fill: str, label: str) -> str:
        length = 0 if not value or scale <= 0 else max(1.5, width * value / scale)
        return f'<rect x="0" y="{y}" width="{length:.1f}" height="7" rx="2" fill="{fill}"><title>{label}</title></rect>'

    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" class="spark" viewBox="0 0 {width} 18" width="{width}" height="18">'
        + bar(current, 1, color, f"this period: {_fmt_number(current or 0)}{unit}")
        + bar(previous, 10, "#cbd5e1", f"previous period: {_fmt_number(previous or 0)}{unit}")
        + "</svg>"
    )
