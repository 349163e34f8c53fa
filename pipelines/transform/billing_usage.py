"""A billing usage answer's items as a billing table's rows (docs/billing.md).

Each item's declared fields (billing_wire.ITEM_COLUMNS, under the dialect's wire names) land in
their columns, money and quantities as Decimal; product and SKU values under the canonical
product word; a grain text the item lacks as '' (a key is never NULL). Any other field of an
item lands in the row's `extra` (Decimals as text, exact) and, with any field the envelope
carries beyond the declared ones, is counted as drift under its wire path, like the reports'.

What the service sends is never lost nor changed silently: an amount sent as a decimal string is
that number; one that is no number (`mistyped`) or that no money column holds exactly
(`unheld`) lands NULL, kept in `extra` and told as drift, and its answer says it held one (its
day's rows then do not claim to add up to the bill). Two items of one key in one answer are one
line of the bill, their amounts summed (`repeated`), and an item whose gross - discount is not
its net lands as sent (net is what is billed) and is told (`inconsistent`), naming it.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import date, datetime
from decimal import Context, Decimal
from typing import Any

import polars as pl

from pipelines.service.billing_wire import ENVELOPE, ITEM_COLUMNS, MONEY, Dialect, canonical_word, wire_name
from pipelines.transform.columns import polars_types

__all__ = ["INCONSISTENT", "MISTYPED", "REPEATED", "UNDECLARED", "UNHELD", "Drift", "UsageRows", "usage_rows"]

UNDECLARED = "undeclared"  # a field no declaration names: in `extra`
MISTYPED = "mistyped"  # an amount that is no number (nor a decimal string): NULL, in `extra`
UNHELD = "unheld"  # an amount its column cannot hold exactly: NULL, in `extra`
REPEATED = "repeated"  # an item of the key of an earlier item of its answer: summed into it
INCONSISTENT = "inconsistent"  # gross - discount is not net: landed as sent
_JSON_TYPES = {dict: "object", list: "array", str: "string", bool: "boolean", int: "number", Decimal: "number"}
_WORDS = ("product", "sku")
# A decimal number written as JSON writes one (no sign but '-', no blanks, no NaN).
_DECIMAL = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
# The money columns' DECIMAL(38,6) (_columns_billing.py): under 10**32, at most 6 places.
_HELD_BELOW = Decimal(10) ** 32
_PLACES = 6
# Sums and differences of such amounts, exact (the default context rounds to 28 digits).
_EXACT = Context(prec=80)
# Each net and the gross and discount it is the difference of.
_DIFFERENCES = (
    ("gross_amount", "discount_amount", "net_amount"),
    ("gross_quantity", "discount_quantity", "net_quantity"),
)
# The grain columns a row shares with every row of its answer: not what names its item.
_SHARED = frozenset({"scope", "scope_name", "day", "meter"})


@dataclass
class Drift:
    """What a table's answers carried beyond (or against) the declarations, per day: (day, path,
    drift) -> items, and the JSON type it came in first."""

    counts: Counter[tuple[date, str, str]] = field(default_factory=Counter)
    types: dict[tuple[date, str, str], str] = field(default_factory=dict)

    def count(self, day: date, path: str, value: object, drift: str = UNDECLARED) -> None:
        self.counts[(day, path, drift)] += 1
        kind = _JSON_TYPES.get(type(value), "null" if value is None else "number")
        self.types.setdefault((day, path, drift), kind)


@dataclass(frozen=True)
class UsageRows:
    """What a scope's answers of one table bring: rows in the table's columns, drift, and the
    lines a person is told (each item whose gross - discount is not its net)."""

    table: str
    rows: list[dict[str, Any]] = field(default_factory=list)
    drift: Drift = field(default_factory=Drift)
    told: list[str] = field(default_factory=list)
    _keys: dict[tuple[Any, ...], int] = field(default_factory=dict)

    def frame(self) -> pl.DataFrame:
        return pl.DataFrame(self.rows, schema=polars_types(self.table))

    def reopen(self, since: int) -> bool:
        """The rows from index `since` on (one day's answers, one holding an amount no column
        holds) do not add up to the bill: never landed closed, so their month is fetched again."""
        for row in self.rows[since:]:
            row["month_closed"] = False
        return False


def _amount(value: object) -> tuple[Decimal | None, str | None]:
    """An amount as its column holds it, or None and the drift that keeps it in `extra`."""
    if value is None:
        return None, None
    if isinstance(value, bool):
        return None, MISTYPED
    if not (isinstance(value, (int, Decimal)) or (isinstance(value, str) and _DECIMAL.fullmatch(value))):
        return None, MISTYPED
    number = Decimal(value)
    _, digits, exponent = number.as_tuple()
    places = -int(exponent)
    if number.copy_abs() >= _HELD_BELOW or (places > _PLACES and any(digits[len(digits) - (places - _PLACES) :])):
        return None, UNHELD
    return number, None


def _text(value: object) -> str:
    return json.dumps(value, default=str, sort_keys=True)


def _item(row: Mapping[str, Any], grain: tuple[str, ...]) -> str:
    return " ".join(str(row[c]) for c in grain if c not in _SHARED and row[c] != "") or "(no name)"


def _differences(out: UsageRows, row: Mapping[str, Any], grain: tuple[str, ...], dialect: Dialect) -> None:
    """Tell each net of the row that is not its gross less its discount."""
    for gross, discount, net in _differences_of(row):
        sent = _EXACT.subtract(row[gross], row[discount])
        out.drift.count(
            row["day"], f"{wire_name(dialect, 'usageItems')}[].{_wire(dialect, net)}", row[net], INCONSISTENT
        )
        out.told.append(
            f"{row['day']} {_item(row, grain)}: {gross} {row[gross]} - {discount} {row[discount]} = {sent}, "
            f"{net} {row[net]} (differs by {_EXACT.subtract(row[net], sent)})"
        )


def _differences_of(row: Mapping[str, Any]) -> list[tuple[str, str, str]]:
    return [
        (g, d, n)
        for g, d, n in _DIFFERENCES
        if all(row.get(c) is not None for c in (g, d, n)) and _EXACT.subtract(row[g], row[d]) != row[n]
    ]


_PUBLIC = {column: public for public, column in ITEM_COLUMNS.items()}


def _wire(dialect: Dialect, column: str) -> str:
    return wire_name(dialect, _PUBLIC[column])


def _merge(out: UsageRows, into: dict[str, Any], row: Mapping[str, Any], items_path: str, dialect: Dialect) -> int:
    """A second item of a key: one line of the bill, each amount summed (a side sent alone kept),
    and the second's `extra` kept beside the first's (a key both carry, differently: both values).
    Returns how many sums no column holds (NULL, kept in `extra` as exact text)."""
    extra = json.loads(into["extra"] or "{}")
    for key, value in json.loads(row["extra"] or "{}").items():
        extra[key] = value if extra.get(key, value) == value else [extra[key], value]
    unheld = 0
    for column in (MONEY - {"price_per_unit"}) & (into.keys() | row.keys()):
        a, b = into.get(column), row.get(column)
        into[column] = b if a is None else a if b is None else _EXACT.add(a, b)
        if into[column] is not None and _amount(into[column])[1] is not None:
            key = _wire(dialect, column)
            extra[key], into[column] = str(into[column]), None
            out.drift.count(into["day"], f"{items_path}[].{key}", extra[key], UNHELD)
            unheld += 1
    into["extra"] = _text(extra) if extra else None
    out.drift.count(into["day"], f"{items_path}[]", {}, REPEATED)
    return unheld


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
) -> int:
    """Add the rows of one answer's `items` to `out`: `fixed` holds the columns every row of the
    answer shares (scope, meter, cost center ...); `day` is the answer's day, or None when each
    item says its own (`date`, the billing usage of a month). Returns how many amounts it could
    not land in their columns (each kept in `extra`, told as drift)."""
    declared = {wire_name(dialect, public): column for public, column in ITEM_COLUMNS.items()}
    envelope_names = {wire_name(dialect, public) for public in ENVELOPE}
    columns = set(polars_types(out.table))
    for key in envelope:
        if key not in envelope_names and day is not None:
            out.drift.count(day, key, envelope[key])
    items_path = wire_name(dialect, "usageItems")
    unheld = 0
    for item in items:
        row: dict[str, Any] = dict(fixed)
        extra: dict[str, Any] = {}
        kept: dict[str, str] = {}
        for key, value in item.items():
            column = declared.get(key)
            if column is None or column not in columns:
                extra[key] = value
            elif column in MONEY:
                row[column], drift = _amount(value)
                if drift is not None:
                    extra[key], kept[key] = value, drift
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
            out.drift.count(row["day"], f"{items_path}[].{key}", value, kept.get(key, UNDECLARED))
        unheld += len(kept)
        _differences(out, row, grain, dialect)
        row["extra"] = _text(extra) if extra else None
        row["fetched_at"] = fetched_at
        row["month_closed"] = month_closed
        line = tuple(row[c] for c in grain)
        if line in out._keys:
            unheld += _merge(out, out.rows[out._keys[line]], row, items_path, dialect)
            continue
        out._keys[line] = len(out.rows)
        out.rows.append(row)
    return unheld
