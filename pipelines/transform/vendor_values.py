"""A vendor's values, pure: a record's line parsed and written exactly (Decimal money), a value
typed as its column holds it, a wire path's value, a record's day, and the keys naming a person
in any vendor's record (by declaration: pipelines/vendors/wire.py)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import UTC, date, datetime
from decimal import Decimal
from typing import Any

import polars as pl

from pipelines.transform.emails import normal_email
from pipelines.vendors.wire import ENDPOINTS, Endpoint

__all__ = [
    "EMAIL_KEYS",
    "IDS",
    "ID_KEYS",
    "day_of",
    "is_email",
    "parse_line",
    "record_person",
    "record_text",
    "typed",
    "value_at",
]

IDS = frozenset({"user_id"})  # id columns: a text, or a whole number as its text


def parse_line(text: str) -> Any:
    """A line of a vendor's archived file: JSON with every non-integer number a Decimal (NaN and
    Infinity are not JSON: refused)."""

    def constant(name: str) -> Any:
        raise ValueError(f"{name} is not JSON")

    return json.loads(text, parse_float=Decimal, parse_constant=constant)


def record_text(value: Any) -> str:
    """Compact JSON of a parsed record, each Decimal written as the number it was sent as."""
    if isinstance(value, dict):
        return "{" + ",".join(f"{json.dumps(str(k))}:{record_text(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ",".join(record_text(v) for v in value) + "]"
    if isinstance(value, Decimal):
        return str(value)
    return json.dumps(value)


def typed(value: object, dtype: pl.DataType, column: str) -> tuple[object, bool]:
    """(the value as its column holds it, whether it fits); None fits every column."""
    if value is None:
        return None, True
    if column in IDS and isinstance(value, int) and not isinstance(value, bool):
        return str(value), True  # an id sent as a number (Cursor's daily userId) is its text
    if isinstance(dtype, pl.Int64):
        ok = isinstance(value, int) and not isinstance(value, bool) and -(2**63) <= value < 2**63
    elif isinstance(dtype, pl.Decimal):
        ok = isinstance(value, (int, Decimal)) and not isinstance(value, bool)
        if ok:
            number = Decimal(value)  # type: ignore[arg-type]
            places, digits = dtype.scale, (dtype.precision or 38) - dtype.scale
            ok = number.is_finite() and abs(number) < Decimal(10) ** digits and number == round(number, places)
            value = number
    elif isinstance(dtype, pl.Boolean):
        ok = isinstance(value, bool)
    else:
        ok = isinstance(value, str)
    return (value, True) if ok else (None, False)


def value_at(record: Mapping[str, Any], path: str) -> object:
    """The value at a dotted wire path (None where any step is missing)."""
    node: object = record
    for step in path.split("."):
        node = node.get(step) if isinstance(node, dict) else None
    return node


def is_email(path: str) -> bool:
    return path.rsplit(".", 1)[-1] in ("email", "email_address")


def _email_paths(endpoint: Endpoint) -> list[str]:
    return [path for _, paths in endpoint.who for path in paths if is_email(path)]


def _id_paths(endpoint: Endpoint) -> list[str]:
    return [path for path, column in endpoint.fields.items() if column in IDS]


# The keys naming a person in any vendor's record (an email; a vendor user id): what erasure
# looks for in the archived records and quarantined lines, by declaration (wire.ENDPOINTS).
EMAIL_KEYS = frozenset(path.rsplit(".", 1)[-1] for e in ENDPOINTS.values() for path in _email_paths(e))
ID_KEYS = frozenset(path.rsplit(".", 1)[-1] for e in ENDPOINTS.values() for path in _id_paths(e))


def record_person(endpoint: Endpoint, record: Mapping[str, Any]) -> tuple[str | None, str | None]:
    """The email (normal_email) and the vendor user id (as its column holds it) a record names."""
    email = next((v for p in _email_paths(endpoint) if isinstance(v := value_at(record, p), str) and v), None)
    found = next((v for p in _id_paths(endpoint) if (v := value_at(record, p)) is not None), None)
    vendor_id, _ = typed(found, pl.String(), "user_id")
    return (normal_email(email) if email else None), (vendor_id if isinstance(vendor_id, str) else None)


def day_of(value: object) -> date | None:
    """A record's day: an RFC 3339 time or date (Claude Code), or epoch milliseconds (Cursor)."""
    if isinstance(value, str):
        try:
            return (
                datetime.fromisoformat(value.replace("Z", "+00:00")).astimezone(UTC).date()
                if "T" in value
                else (date.fromisoformat(value))
            )
        except ValueError:
            return None
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 10**15:
        return datetime.fromtimestamp(value / 1000, tz=UTC).date()
    return None
