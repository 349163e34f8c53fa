"""Line charts that fit any width: a phone sees every day, the newest included, and no text shrinks.

A chart is HTML around two SVGs: a fixed-width y axis and a plot as wide as its card. The plot
places days in percent of its width and values in pixels of its fixed height, so it stretches
sideways without scaling its text (always _FONT px) or its dots; the lines are drawn in a
stretched inner SVG with strokes that keep their width. Its title and legend are HTML, which
wraps. The date labels come in two sets, a few for a phone and more from 600 px up (the style
sheet shows one), the first and last anchored inside the plot so none is cut at its edges.
Pure functions of the numbers, no I/O, no JavaScript.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import date
from html import escape

from pipelines.page._svg import (
    AXIS_INK,
    FONT,
    GAP_FILL,
    PROVISIONAL_FILL,
    Series,
    fmt_number,
    legend_items,
    nice_max,
)

_PLOT_H, _TOP, _BOTTOM, _Y_AXIS_W = 180, 8, 22, 44
_PAD = 1.5  # percent of the plot's width left free at each end, so the end dots are whole
_LINE_UNITS = 1000  # the inner lines' viewBox width: the plot's width, stretched
_PHONE_LABELS = 3


def line_chart(
    *,
    title: str,
    days: Sequence[date],
    series: Sequence[Series],
    gaps: frozenset[date] = frozenset(),
    gap_label: str = "no data reported",
    provisional: frozenset[date] = frozenset(),
    provisional_label: str = "provisional: still filling in, not a drop",
    y_format: Callable[[float], str] = fmt_number,
    y_max: float | None = None,
    wide_labels: int = 8,
) -> str:
    """A line chart over days (or weeks), as one <figure>; None values break the line, `gaps`
    points are shaded grey and `provisional` points amber, each named in the legend.
    `wide_labels`: how many dates the axis names from 600 px up (the chart's width there)."""
    height = _TOP + _PLOT_H + _BOTTOM
    numbers = [v for s in series for v in s.values.values() if v is not None]
    top_value = y_max if y_max is not None else nice_max(max(numbers, default=0))
    span = 100 - 2 * _PAD
    step = span / max(len(days) - 1, 1)
    x_of = {day: _PAD + i * step for i, day in enumerate(days)}

    def y_of(value: float) -> float:
        return _TOP + _PLOT_H - (value / top_value) * _PLOT_H

    axis = [f'<svg class="y-axis" width="{_Y_AXIS_W}" height="{height}" aria-hidden="true">']
    plot = [f'<svg class="chart" width="100%" height="{height}" role="img" aria-label="{escape(title)}">']
    for i in range(5):
        value = top_value * i / 4
        axis.append(
            f'<text x="{_Y_AXIS_W - 6}" y="{y_of(value) + 4:.1f}" text-anchor="end" font-size="{FONT}" '
            f'fill="{AXIS_INK}">{escape(y_format(value))}</text>'
        )
        plot.append(f'<line x1="0" x2="100%" y1="{y_of(value):.1f}" y2="{y_of(value):.1f}" stroke="#f1f5f9"/>')
    axis.append("</svg>")
    band = max(step, 0.6)
    marks = []
    for css, fill, label, marked in (
        ("gap", GAP_FILL, gap_label, gaps),
        ("provisional", PROVISIONAL_FILL, provisional_label, provisional),
    ):
        shaded = sorted(marked & set(days))
        if shaded:
            marks.append((label, fill, AXIS_INK))
        for day in shaded:
            left = max(x_of[day] - band / 2, 0)
            plot.append(
                f'<rect class="{css}" x="{left:.2f}%" y="{_TOP}" width="{min(band, 100 - left):.2f}%" '
                f'height="{_PLOT_H}" fill="{fill}"><title>{day}: {escape(label)}</title></rect>'
            )
    bottom = _TOP + _PLOT_H
    plot.append(f'<line x1="0" x2="100%" y1="{bottom}" y2="{bottom}" stroke="{AXIS_INK}"/>')
    plot.extend(_date_labels(days, x_of, y=bottom + 16, count=_PHONE_LABELS, css="tick-phone"))
    plot.extend(_date_labels(days, x_of, y=bottom + 16, count=wide_labels, css="tick-wide"))
    # The lines: an inner SVG stretched to the plot; its strokes keep their width as it stretches.
    plot.append(
        f'<svg class="lines" x="0" y="0" width="100%" height="{height}" viewBox="0 0 {_LINE_UNITS} {height}" '
        'preserveAspectRatio="none">'
    )
    for s in series:
        for run in _runs(days, s.values):
            if len(run) > 1:
                points = " ".join(f"{x_of[d] * _LINE_UNITS / 100:.1f},{y_of(v):.1f}" for d, v in run)
                plot.append(
                    f'<polyline class="series" data-series="{escape(s.name)}" points="{points}" fill="none" '
                    f'stroke="{s.color}" stroke-width="2" stroke-linejoin="round" stroke-linecap="round" '
                    'vector-effect="non-scaling-stroke"/>'
                )
    plot.append("</svg>")
    for s in series:
        for run in _runs(days, s.values):
            for d, v in run:
                plot.append(
                    f'<circle cx="{x_of[d]:.2f}%" cy="{y_of(v):.1f}" r="2.5" fill="{s.color}">'
                    f"<title>{escape(s.name)}, {d}: {escape(y_format(v))}</title></circle>"
                )
    plot.append("</svg>")
    legend = legend_items([(s.name, s.color, s.color) for s in series] + marks)
    return (
        f'<figure class="line-chart"><figcaption class="chart-title">{escape(title)}</figcaption>'
        f'<div class="chart-body">{"".join(axis)}{"".join(plot)}</div>{legend}</figure>'
    )


def _date_labels(days: Sequence[date], x_of: Mapping[date, float], *, y: int, count: int, css: str) -> list[str]:
    """`count` dates spread evenly from the first day to the newest; the first is anchored at its
    start and the newest at its end, so both stay inside the plot."""
    if not days:
        return []
    n = min(count, len(days))
    picks = sorted({round(j * (len(days) - 1) / max(n - 1, 1)) for j in range(n)})
    out = []
    for i in picks:
        anchor = "start" if i == 0 else "end" if i == len(days) - 1 else "middle"
        x = 0 if i == 0 else 100 if i == len(days) - 1 else x_of[days[i]]
        out.append(
            f'<text class="{css}" x="{x:.2f}%" y="{y}" text-anchor="{anchor}" font-size="{FONT}" '
            f'fill="{AXIS_INK}">{days[i]:%b %d}</text>'
        )
    return out


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
