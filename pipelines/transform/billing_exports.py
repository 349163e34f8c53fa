"""An enterprise's usage report export (CSV, one line per user, day, SKU and model) → rows of
billing.user_usage, and the lines that cannot land with the reason (docs/billing.md).

Pure functions, no I/O. The header names the columns (a UTF-8 byte-order mark before it is the
encoding mark it is); a header without the date, user, SKU or an amount the cost views need
makes the file unreadable (`ExportRows.unreadable`): no line of it can land, so the month is not
replaced. Amounts parse as `Decimal` from their text (never a float) and land DECIMAL(18,6). A
line lands when its day is a date inside the export's period, its user and SKU are named and
every amount is a number; any other line is refused alone with its reason (raw.quarantine) and
the file's other lines land. A column the header
adds beyond the known ones is kept in the row's `extra`. Product and SKU values land under the
service's product word (`billing_wire.canonical_word`), as the usage tables' do.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date, datetime
from decimal import Decimal, InvalidOperation
from typing import Any

import polars as pl

from pipelines.service.billing_wire import Dialect, canonical_word
from pipelines.transform.columns import polars_types

__all__ = ["EXPORT_COLUMNS", "ExportLines", "ExportRows", "export_frame"]

USER_USAGE = "billing.user_usage"
# The export's columns (the public per-user usage report's), and the column each lands in.
EXPORT_COLUMNS: dict[str, str] = {
    "date": "day",
    "username": "user_login",
    "product": "product",
    "sku": "sku",
    "model": "model",
    "quantity": "quantity",
    "unit_type": "unit_type",
    "applied_cost_per_quantity": "applied_cost_per_quantity",
    "gross_amount": "gross_amount",
    "discount_amount": "discount_amount",
    "net_amount": "net_amount",
    "exceeds_quota": "exceeds_quota",
    "total_monthly_quota": "total_monthly_quota",
    "organization": "organization",
    "cost_center_name": "cost_center_name",
}
_REQUIRED = ("date", "username", "sku")
# The amounts the cost views sum and the bill nets (gross - discount = net): a header without one
# would land every line with it NULL.
_AMOUNTS = ("quantity", "gross_amount", "discount_amount", "net_amount")
_BOM = "\ufeff"  # UTF-8's byte-order mark, as the archive's lines decode it
_MONEY = frozenset(
    {"quantity", "applied_cost_per_quantity", "gross_amount", "discount_amount", "net_amount", "total_monthly_quota"}
)
_LIMIT = Decimal(10) ** 12  # DECIMAL(18,6) holds less than this
_SIX_PLACES = Decimal("0.000001")
_GRAIN = ("day", "user_login", "product", "sku", "model", "organization", "cost_center_name")


@dataclass(frozen=True)
class ExportLines:
    """Where the lines come from: the export's scope and period, when fetched, the dialect."""

    scope_name: str
    start_day: date
    end_day: date
    fetched_at: datetime
    month_closed: bool
    dialect: Dialect


@dataclass
class ExportRows:
    rows: list[dict[str, Any]] = field(default_factory=list)
    refused: list[tuple[int, str, str]] = field(default_factory=list)  # line number, reason, line text
    unreadable: str | None = None  # why no line of the file can land (its header), if so


def _amount(text: str) -> Decimal | None:
    try:
        value = Decimal(text)
    except InvalidOperation:
        return None
    if not value.is_finite() or abs(value) >= _LIMIT:
        return None
    return value.quantize(_SIX_PLACES)


def _flag(text: str) -> bool | None:
    return {"true": True, "false": False}.get(text.strip().lower())


def export_rows(lines: Iterable[tuple[int, str]], source: ExportLines) -> ExportRows:
    """The rows of an export's lines ((number, text), the header first); refused lines with why; or,
    the header naming too little or missing, why the file is unreadable."""
    out = ExportRows()
    header: list[str] | None = None
    seen: dict[tuple[Any, ...], int] = {}
    for number, text in lines:
        if not text.strip():
            continue
        if header is None:
            text = text.removeprefix(_BOM)
        try:
            fields = next(csv.reader([text]))
        except csv.Error as exc:
            out.refused.append((number, f"not a CSV line: {exc}", text))
            continue
        if header is None:
            header = [name.strip().lower() for name in fields]
            if missing := [name for name in (*_REQUIRED, *_AMOUNTS) if name not in header]:
                out.unreadable = f"its header names no {', '.join(missing)} column"
                return out
            continue
        row, why = _row(dict(zip(header, fields, strict=False)), len(fields), len(header), source)
        if row is None:
            out.refused.append((number, why, text))
            continue
        key = tuple(row[column] for column in _GRAIN)
        if key in seen:
            out.refused.append(
                (number, f"repeats line {seen[key]}'s user, day, SKU, model, organization and cost center", text)
            )
            continue
        seen[key] = number
        out.rows.append(row)
    if header is None:
        out.unreadable = "it holds no header line"
    return out


def _row(values: dict[str, str], width: int, expected: int, source: ExportLines) -> tuple[dict[str, Any] | None, str]:
    if width != expected:
        return None, f"{width} fields where the header names {expected}"
    try:
        day = date.fromisoformat(values["date"].strip())
    except ValueError:
        return None, f"date {values['date']!r} is not a date"
    if not source.start_day <= day <= source.end_day:
        return None, f"date {day} is outside the export's period {source.start_day}..{source.end_day}"
    if not values["username"].strip() or not values["sku"].strip():
        return None, "no username or no SKU"
    row: dict[str, Any] = {
        "scope": "enterprise",
        "scope_name": source.scope_name,
        "fetched_at": source.fetched_at,
        "month_closed": source.month_closed,
    }
    for name, column in EXPORT_COLUMNS.items():
        text = values.get(name)
        if name == "date":
            row[column] = day
        elif text is None or (not text.strip() and name not in ("username",)):
            row[column] = "" if column in _GRAIN else None
        elif name in _MONEY:
            amount = _amount(text)
            if amount is None:
                return None, f"{name} {text!r} is not an amount"
            row[column] = amount
        elif name == "exceeds_quota":
            flag = _flag(text)
            if flag is None:
                return None, f"exceeds_quota {text!r} is neither true nor false"
            row[column] = flag
        elif name in ("product", "sku"):
            row[column] = canonical_word(source.dialect, text.strip())
        else:
            row[column] = text.strip()
    extra = {name: value for name, value in values.items() if name not in EXPORT_COLUMNS}
    row["extra"] = json.dumps(extra, separators=(",", ":")) if extra else None
    return row, ""


def export_frame(rows: list[dict[str, Any]]) -> pl.DataFrame:
    """billing.user_usage's rows, typed by its declaration."""
    schema = polars_types(USER_USAGE)
    return pl.DataFrame([{column: row.get(column) for column in schema} for row in rows], schema=schema, orient="row")
