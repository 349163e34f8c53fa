"""A billing usage answer's items as a billing table's rows (docs/billing.md).

Each item's declared fields (billing_wire.ITEM_COLUMNS, under the dialect's wire names) land in
their columns, money and quantities as Decimal; product and SKU values under the canonical
product word; a grain text the item lacks as '' (a key is never NULL). Any other field of an
item lands in the row's `extra` (Decimals as text, exact) and, with any field the envelope
carries beyond the declared ones, is counted as drift under its wire path, like the reports'.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import date, datetime
from decimal import Decimal
from typing import Any

import polars as pl

from pipelines.service.billing_wire import ENVELOPE, ITEM_COLUMNS, MONEY, Dialect, canonical_word, wire_name
from pipelines.transform.columns import polars_types

__all__ = ["UNDECLARED", "Drift", "UsageRows", "usage_rows"]

UNDECLARED = "undeclared"
_JSON_TYPES = {dict: "object", list: "array", str: "string", bool: "boolean", int: "number", Decimal: "number"}
_WORDS = ("product", "sku")


@dataclass
class Drift:
    """Undeclared paths of a table's answers per day: (day, path) -> items carrying it, and the
    JSON type it came in first."""

    counts: Counter[tuple[date, str]] = field(default_factory=Counter)
    types: dict[tuple[date, str], str] = field(default_factory=dict)

    def count(self, day: date, path: str, value: object) -> None:
        self.counts[(day, path)] += 1
        self.types.setdefault((day, path), _JSON_TYPES.get(type(value), "null" if value is None else "number"))


@dataclass(frozen=True)
class UsageRows:
    """What a scope's answers of one table bring: rows in the table's columns, and drift."""

    table: str
    rows: list[dict[str, Any]] = field(default_factory=list)
    drift: Drift = field(default_factory=Drift)

    def frame(self) -> pl.DataFrame:
        return pl.DataFrame(self.rows, schema=polars_types(self.table))


def _number(value: object) -> Decimal | None:
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, (int, Decimal)):
        return Decimal(value)
    return None


def _text(value: object) -> str:
    return json.dumps(value, default=str, sort_keys=True)


def usage_rows(
    out: UsageRows,
    items: Iterable[Mapping[str, Any]],
    *,
    dialect: Dialect,
    day: date | None,
    envelope: Mapping[str, Any],
    fixed: Mapping[str, Any],
    grain: tuple[str, ...],
    fetched_at: datetime,
    month_closed: bool,
) -> None:
    """Add the rows of one answer's `items` to `out`: `fixed` holds the columns every row of the
    answer shares (scope, meter, cost center ...); `day` is the answer's day, or None when each
    item says its own (`date`, the billing usage of a month)."""
    declared = {wire_name(dialect, public): column for public, column in ITEM_COLUMNS.items()}
    envelope_names = {wire_name(dialect, public) for public in ENVELOPE}
    columns = set(polars_types(out.table))
    for key in envelope:
        if key not in envelope_names and day is not None:
            out.drift.count(day, key, envelope[key])
    items_path = wire_name(dialect, "usageItems")
    for item in items:
        row: dict[str, Any] = dict(fixed)
        extra: dict[str, Any] = {}
        for key, value in item.items():
            column = declared.get(key)
            if column is None or column not in columns:
                extra[key] = value
            elif column in MONEY:
                row[column] = _number(value)
            elif column == "day":
                row[column] = date.fromisoformat(str(value))
            elif column in _WORDS and isinstance(value, str):
                row[column] = canonical_word(dialect, value)
            else:
                row[column] = value
        if day is not None:
            row["day"] = day
        for column in grain:
            if row.get(column) is None:
                row[column] = ""
        for key, value in extra.items():
            out.drift.count(row["day"], f"{items_path}[].{key}", value)
        row["extra"] = _text(extra) if extra else None
        row["fetched_at"] = fetched_at
        row["month_closed"] = month_closed
        out.rows.append(row)
