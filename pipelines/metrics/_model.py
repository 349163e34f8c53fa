"""What the catalog declares and what a reader answers: metrics, dimensions, answers, comparisons.

Every answer says, beside its rows, which days were gaps (no figure: never a zero), which were
provisional (fetched before the day was final: still filling in), how many rows the aggregate tier
hid under k and in which groups, and how fresh the data is, so a reader of the answer (a person or
an assistant) cannot drop what the page and the views keep.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal
from typing import Any, Literal

Grain = Literal["day", "period"]  # a period: 28 days, given by its newest day
Tier = Literal["aggregate", "pseudonymous"]
GRAINS: dict[Grain, str] = {"day": "day", "period": "28-day period"}


class MetricsError(Exception):
    """One line naming what was wrong and what is accepted. `usage`: the question was wrong (an
    unknown metric, dimension or range); otherwise the tier could not answer it (not there yet,
    past the time limit)."""

    def __init__(self, message: str, *, usage: bool = True) -> None:
        super().__init__(" ".join(message.split()))
        self.usage = usage


@dataclass(frozen=True)
class Dimension:
    """What a metric's rows may be grouped and filtered by: a column of its source named after the
    dimension (its id), and `<name>_name` beside it when `labelled` (the latest label of the id)."""

    name: str
    definition: str
    tier: Tier = "aggregate"
    labelled: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "definition": self.definition, "tier": self.tier}


@dataclass(frozen=True)
class Metric:
    """One metric, declared once (pipelines/metrics/<group>.py): what it means in the service's
    terms, and the SQL that computes it, `measure`, an aggregate over the rows of `source` (a view
    its group's file, sql/metrics/<group>.sql, makes over the tier), per scope and day or period."""

    name: str
    definition: str
    unit: str
    grain: Grain
    source: str
    measure: str
    gap_rule: str
    finality_rule: str
    dimensions: tuple[str, ...] = ("scope",)
    # Always in the answer, never summed over: a person counts once per agent app, per team.
    split_by: tuple[str, ...] = ()
    tier: Tier = "aggregate"
    # The day-grain metric whose daily values the page's change rule weighs in a comparison
    # (itself, for a count a day); None: it has no daily counts (a rate, or cost by period).
    compared_by: str | None = None
    # SQL telling a day's rows hold a figure (the day is no gap); default: the measure is not NULL.
    known: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "definition": self.definition,
            "unit": self.unit,
            "grain": GRAINS[self.grain],
            "dimensions": list(self.dimensions),
            "always_split_by": ["scope", *self.split_by],
            "gap_rule": self.gap_rule,
            "finality_rule": self.finality_rule,
            "tier": self.tier,
            "compared_by": self.compared_by,
            "computed_as": f"{self.measure} over {self.source}",
        }


@dataclass(frozen=True)
class Suppressed:
    """Rows the aggregate tier hid (fewer than k people behind them): how many, and which groups
    (a scope, a day or period, an agent app, a team: never a person)."""

    count: int = 0
    groups: tuple[Mapping[str, Any], ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {"count": self.count, "groups": [_jsonable(dict(g)) for g in self.groups]}


@dataclass(frozen=True)
class Freshness:
    newest_day: date | None
    published_at: str | None  # ISO timestamp: when the tier's serving database was published
    first_day: date | None = None  # where the tier's history begins: days before it are no gaps

    def to_dict(self) -> dict[str, Any]:
        return {
            "first_day": self.first_day.isoformat() if self.first_day else None,
            "newest_day": self.newest_day.isoformat() if self.newest_day else None,
            "published_at": self.published_at,
        }


@dataclass(frozen=True)
class Answer:
    metric: Metric
    columns: tuple[str, ...]
    rows: tuple[tuple[Any, ...], ...]
    gaps: tuple[date, ...] = ()
    provisional: tuple[date, ...] = ()
    suppressed: Suppressed = field(default_factory=Suppressed)
    freshness: Freshness = field(default_factory=lambda: Freshness(None, None))
    truncated: bool = False

    def records(self) -> list[dict[str, Any]]:
        return [dict(zip(self.columns, row, strict=True)) for row in self.rows]

    def to_dict(self) -> dict[str, Any]:
        return {
            "metric": self.metric.to_dict(),
            "columns": list(self.columns),
            "rows": [_jsonable(r) for r in self.records()],
            "gaps": [d.isoformat() for d in self.gaps],
            "provisional": [d.isoformat() for d in self.provisional],
            "suppressed": self.suppressed.to_dict(),
            "freshness": self.freshness.to_dict(),
            "truncated": self.truncated,
        }


@dataclass(frozen=True)
class Comparison:
    """Two 28-day periods (each by its newest day) of one metric, per group: both periods' values,
    the rates a day the change rule weighs (its compared days: final days with data), the change
    of the second against the first, its 95% interval, and the call the page makes of it."""

    metric: Metric
    compared_by: Metric | None
    first: tuple[date, date]
    second: tuple[date, date]
    columns: tuple[str, ...]
    rows: tuple[tuple[Any, ...], ...]
    rule: str
    gaps: tuple[date, ...] = ()
    provisional: tuple[date, ...] = ()
    suppressed: Suppressed = field(default_factory=Suppressed)
    freshness: Freshness = field(default_factory=lambda: Freshness(None, None))
    truncated: bool = False

    def records(self) -> list[dict[str, Any]]:
        return [dict(zip(self.columns, row, strict=True)) for row in self.rows]

    def to_dict(self) -> dict[str, Any]:
        return {
            "metric": self.metric.to_dict(),
            "compared_by": self.compared_by.name if self.compared_by else None,
            "first": {"start": self.first[0].isoformat(), "end": self.first[1].isoformat()},
            "second": {"start": self.second[0].isoformat(), "end": self.second[1].isoformat()},
            "rule": self.rule,
            "columns": list(self.columns),
            "rows": [_jsonable(r) for r in self.records()],
            "gaps": [d.isoformat() for d in self.gaps],
            "provisional": [d.isoformat() for d in self.provisional],
            "suppressed": self.suppressed.to_dict(),
            "freshness": self.freshness.to_dict(),
            "truncated": self.truncated,
        }


def _jsonable(row: Mapping[str, Any]) -> dict[str, Any]:
    """Dates as ISO text, decimals (money) as floats: what JSON holds."""
    out: dict[str, Any] = {}
    for key, value in row.items():
        if isinstance(value, date):
            out[key] = value.isoformat()
        elif isinstance(value, Decimal):
            out[key] = float(value)
        else:
            out[key] = value
    return out


def accepted(names: Sequence[str]) -> str:
    return ", ".join(sorted(names)) or "none"
