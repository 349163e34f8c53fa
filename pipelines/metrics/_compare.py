"""A comparison's rows: per group, both periods' figures, their compared days and rates a day,
the change the page's rule calls, and the page's words for it (pipelines._words, as the run
summary says them)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import date
from typing import Any

from pipelines._words import rate_change
from pipelines.metrics._model import Metric
from pipelines.metrics._query import Shape


def within(periods: tuple[tuple[date, date], ...]) -> Callable[[date], bool]:
    return lambda day: any(start <= day <= end for start, end in periods)


def group(record: Mapping[str, Any], keys: Sequence[str]) -> tuple[Any, ...]:
    return (record["scope"], record["scope_name"], *(record[key] for key in keys))


def comparison_rows(
    changes: list[tuple[Any, ...]],
    shape: Shape,
    series: Metric,
    values: dict[tuple[Any, ...], dict[date, Any]],
    first: date,
    second: date,
) -> tuple[tuple[str, ...], list[tuple[Any, ...]]]:
    """Per group: both periods' figures (a period metric's own; a day metric's total over the
    compared days), their compared days and rates a day, the change, its interval, the call and
    the page's words for it."""
    names = ("scope", "scope_name", *shape.key_columns)
    made = (*names, "first_total", "first_days", "second_total", "second_days", "hidden_days")
    made += ("first_per_day", "second_per_day", "call", "change_low", "change_high", "min_days")
    columns = (*names, "first_value", "second_value", "first_days", "second_days", "first_per_day")
    columns += ("second_per_day", "change", "change_low", "change_high", "call", "said")
    rows = []
    for row in changes:
        r = dict(zip(made, row, strict=True))
        if shape.metric.grain == "period":
            own = values.get(group(r, shape.keys), {})
            first_value, second_value = own.get(first), own.get(second)
        else:
            # A period without a compared day has no total: NULL, never a zero.
            first_value = r["first_total"] if r["first_days"] else None
            second_value = r["second_total"] if r["second_days"] else None
        before, now = r["first_per_day"], r["second_per_day"]
        change = now / before - 1 if r["call"] and before and now is not None else None
        said = rate_change(
            r["call"],
            now,
            before,
            unit=f"{series.unit} a day",
            before="in the first period",
            low=r["change_low"],
            high=r["change_high"],
        )
        if r["call"] is None:
            # The rule calls nothing on fewer compared days a period than its minimum.
            days = f"{r['first_days']} and {r['second_days']} compared days"
            said = f"no comparison: {days} (the rule needs {r['min_days']} in each)"
        rows.append(
            (
                *(r[n] for n in names),
                first_value,
                second_value,
                r["first_days"],
                r["second_days"],
                before,
                now,
                change,
                r["change_low"],
                r["change_high"],
                r["call"],
                said,
            )
        )
    return columns, rows
