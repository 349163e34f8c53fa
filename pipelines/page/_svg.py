"""The page's small drawings as inline SVG text (the coverage calendar, table bars) and what the
line charts share with them: pure functions of the numbers, no I/O, no JavaScript."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date, timedelta
from html import escape

PALETTE = ("#2563eb", "#db2777", "#059669", "#d97706", "#7c3aed", "#0891b2", "#dc2626", "#4d7c0f", "#9333ea", "#475569")
GAP_FILL = "#e5e7eb"
PROVISIONAL_FILL = "#fde68a"  # amber: a day still filling in, not a drop
_PROVISIONAL_EDGE = "#f59e0b"
AXIS_INK = "#9ca3af"
# A chart's text, in CSS px: charts are drawn at their own size and never scale it.
FONT = 12


@dataclass(frozen=True)
class Series:
    name: str
    color: str
    values: Mapping[date, float | None]


def nice_max(value: float) -> float:
    if value <= 0:
        return 1.0
    exponent: float = 10 ** math.floor(math.log10(value))
    for step in (1, 1.2, 1.6, 2, 2.4, 3, 4, 5, 6, 8, 10):
        if value <= step * exponent:
            return step * exponent
    return 10 * exponent


def fmt_number(value: float) -> str:
    if value >= 1_000_000:
        return f"{value / 1_000_000:.1f}M"
    if value >= 10_000:
        return f"{value / 1000:.0f}k"
    if value >= 1000:
        return f"{value / 1000:.1f}k"
    return f"{value:.0f}" if value >= 10 or value == int(value) else f"{value:.1f}"


def legend_items(items: Sequence[tuple[str, str, str]]) -> str:
    """A key as HTML (name, fill, edge), so it wraps on a narrow screen instead of shrinking."""
    return (
        '<ul class="legend">'
        + "".join(
            f'<li><span class="swatch" style="background:{fill};border-color:{edge}"></span>{escape(text)}</li>'
            for text, fill, edge in items
        )
        + "</ul>"
    )


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
    """One calendar per scope and level, its label above it: a row a week (Monday first), the
    newest week on top and each row named by its Monday, one square a day: green shades by
    activity, grey without agent array, white with a red edge without report. Its width does not
    grow with the days, so calendars sit side by side and wrap, and a phone shows the newest
    days first. Drawn at its own size (11 px text). Its key is `coverage_legend()`."""
    if not days or not rows:
        return ""
    pitch, top, label_w = 14, 16, 50
    cell = pitch - 3
    mondays = sorted({day - timedelta(days=day.weekday()) for day in days}, reverse=True)
    row_of = {monday: r for r, monday in enumerate(mondays)}
    width, height = label_w + 7 * pitch, top + len(mondays) * pitch
    blocks = []
    for label, cells in rows:
        parts = [
            f'<div class="calendar-block"><div class="calendar-label">{escape(label)}</div>'
            f'<svg xmlns="http://www.w3.org/2000/svg" class="calendar" width="{width}" height="{height}" '
            f'role="img" aria-label="{escape(title)}: {escape(label)}">'
        ]
        parts.extend(
            f'<text x="{label_w + i * pitch + cell / 2:.1f}" y="{top - 5}" text-anchor="middle" font-size="11" '
            f'fill="{AXIS_INK}">{letter}</text>'
            for i, letter in enumerate("MTWTFSS")
        )
        parts.extend(
            f'<text x="{label_w - 6}" y="{top + r * pitch + cell - 1}" text-anchor="end" font-size="11" '
            f'fill="{AXIS_INK}">{monday:%b %d}</text>'
            for r, monday in enumerate(mondays)
        )
        busiest = max((c.value for c in cells.values() if c.value), default=1) or 1
        for day in days:
            c = cells.get(day) or CoverageCell(day, "no report", None, "no report")
            fill = _green((c.value or 0) / busiest) if c.state == "agents" else _STATE_FILL[c.state]
            stroke = "#f87171" if c.state == "no report" else _PROVISIONAL_EDGE if c.provisional else "#ffffff"
            note = f"{c.note}; provisional, still filling in" if c.provisional else c.note
            x = label_w + day.weekday() * pitch
            y = top + row_of[day - timedelta(days=day.weekday())] * pitch
            parts.append(
                f'<rect class="day" data-state="{escape(c.state)}" data-provisional="{str(c.provisional).lower()}" '
                f'x="{x + 1}" y="{y + 1}" width="{cell - 1}" height="{cell - 1}" rx="2" '
                f'fill="{fill}" stroke="{stroke}" stroke-width="{2 if c.provisional else 1}">'
                f"<title>{escape(label)}, {day:%a %Y-%m-%d}: {escape(note)}</title></rect>"
            )
        parts.append("</svg></div>")
        blocks.append("".join(parts))
    return f'<div class="calendars">{"".join(blocks)}</div>'


def coverage_legend() -> str:
    """The calendar's key as HTML, so it wraps on a narrow screen instead of shrinking."""
    items = [
        ("agent array reported (darker = more activity)", _green(0.8), _green(0.8)),
        ("report without agent array: a gap, not zero", _STATE_FILL["no array"], _STATE_FILL["no array"]),
        ("no report", "#ffffff", "#f87171"),
        ("provisional: still filling in", "#ffffff", _PROVISIONAL_EDGE),
    ]
    return legend_items(items)


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
        + bar(current, 1, color, f"this period: {fmt_number(current or 0)}{unit}")
        + bar(previous, 10, "#cbd5e1", f"previous period: {fmt_number(previous or 0)}{unit}")
        + "</svg>"
    )
