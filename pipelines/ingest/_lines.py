"""The line parse path: each line decoded and type-checked on its own.

About nine times slower than the fast path (`_fast.py`), it reads only the small pieces around
the lines the fast path refuses. Types are tolerant where the row does not depend on them: a
value of the wrong JSON type in a field outside the row's key lands as NULL, its raw value kept
in `_extra` under the field's path (and counted as drift when the report lands). Only a line
that is not JSON, or whose key (day, the scope's entity id, user id and login) is mistyped,
becomes a reject with its line number and reason; the other lines still land.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from typing import Any

import polars as pl

from pipelines.ingest._wire import ELEMENT_KEYS, Wire, canonical, dtype_of, wire_of
from pipelines.transform import json_values
from pipelines.transform.records import EXTRA, LINE, empty_records
from pipelines.transform.schema import DAY_TOTALS_WRAPPER, KEY_FIELDS

LINE_TEXT_LIMIT = 2000


@dataclass(frozen=True)
class Reject:
    line_number: int
    reason: str
    line_text: str | None


class _TypeMismatch(ValueError):
    pass


_MISSING = object()  # a typed value with no place in `_extra` (nothing was mistyped)


def scalar_fits(value: object, dtype: pl.DataType) -> bool:
    if isinstance(dtype, pl.Int64):
        return isinstance(value, int) and not isinstance(value, bool) and -(2**63) <= value < 2**63
    if isinstance(dtype, pl.Float64):
        return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
    if isinstance(dtype, pl.Decimal):
        return isinstance(value, (int, float)) and not isinstance(value, bool) and _fits(value, dtype)
    if isinstance(dtype, pl.Boolean):
        return isinstance(value, bool)
    if isinstance(dtype, pl.String):
        return isinstance(value, str)
    if isinstance(dtype, pl.Date):
        return isinstance(value, str) and _is_date(value)
    return False


def _check_key(value: object, dtype: pl.DataType, where: str) -> None:
    """A key field's value fits its type, or the line cannot land: a reject."""
    if value is not None and not scalar_fits(value, dtype):
        raise _TypeMismatch(f"field {where}: expected {dtype}, got {type(value).__name__} {str(value)[:40]!r}")


def _tolerant(value: object, dtype: pl.DataType, *, keys: tuple[str, ...] = ()) -> tuple[object, object]:
    """(the value as its type can hold it, what did not fit as raw JSON, else _MISSING).

    A mistyped leaf becomes None and is kept whole; a struct keeps its fitting members; a list
    element whose key fields (`keys`) do not fit is left out of the typed value and kept whole,
    and one with mistyped members is kept as its keys and those members, as `_extra` carries
    unknown members of known elements.
    """
    if value is None:
        return None, _MISSING
    if isinstance(dtype, pl.Struct):
        if not isinstance(value, dict):
            return None, value
        typed: dict[str, object] = {}
        kept: dict[str, object] = {}
        for f in dtype.fields:
            typed[f.name], raw = _tolerant(value.get(f.name), dtype_of(f.dtype))
            if raw is not _MISSING:
                kept[f.name] = raw
        return typed, kept or _MISSING
    if isinstance(dtype, pl.List):
        if not isinstance(value, list):
            return None, value
        inner = dtype_of(dtype.inner)
        items: list[object] = []
        kept_items: list[object] = []
        for item in value:
            if keys and isinstance(inner, pl.Struct) and isinstance(item, dict):
                members = {f.name: dtype_of(f.dtype) for f in inner.fields}
                if not all(item.get(k) is None or scalar_fits(item.get(k), members[k]) for k in keys):
                    kept_items.append({k: v for k, v in item.items() if v is not None})
                    continue
            typed_item, raw = _tolerant(item, inner)
            items.append(typed_item)
            if raw is not _MISSING:
                kept_items.append({**{k: item.get(k) for k in keys}, **raw} if isinstance(raw, dict) else raw)
        return items, kept_items or _MISSING
    if scalar_fits(value, dtype):
        return value, _MISSING
    return None, value


def _merged(into: dict[str, Any], more: dict[str, Any]) -> dict[str, Any]:
    """`_extra`'s unknown members and its mistyped ones in one object (objects merged, lists joined)."""
    for name, value in more.items():
        if isinstance(value, dict) and isinstance(into.get(name), dict):
            into[name] = _merged(dict(into[name]), value)
        elif isinstance(value, list) and isinstance(into.get(name), list):
            into[name] = [*into[name], *value]
        else:
            into[name] = value
    return into


def _fits(value: float, dtype: pl.Decimal) -> bool:
    """A finite number whose value rounded to the scale fits the precision."""
    if not math.isfinite(value):
        return False
    scale = dtype.scale or 0
    return abs(round(Decimal(repr(value)), scale)) < Decimal(10) ** ((dtype.precision or 38) - scale)


def _is_date(text: str) -> bool:
    try:
        date.fromisoformat(text)
    except ValueError:
        return False
    return len(text) == 10


def _records_of(obj: object) -> list[dict[str, Any]]:
    """A line's records: the object itself, or the daily records of a `day_totals` wrapper.

    The wrapper's own fields (`created_at`, `report_start_day`, the scope's id, any new one)
    apply to each of its daily records: a record gets those it lacks, so they are kept (in
    `extra` when the schema does not know them) rather than dropped with the wrapper.
    """
    if not isinstance(obj, dict):
        raise _TypeMismatch(f"expected a JSON object, got {type(obj).__name__}")
    if DAY_TOTALS_WRAPPER in obj and "day" not in obj:
        inner = obj[DAY_TOTALS_WRAPPER]
        if not isinstance(inner, list) or not all(isinstance(r, dict) for r in inner):
            raise _TypeMismatch(f"field {DAY_TOTALS_WRAPPER}: expected a list of objects")
        header = {k: v for k, v in obj.items() if k != DAY_TOTALS_WRAPPER}
        return [{**header, **record} for record in inner]
    return [obj]


def read_lines(
    lines: Iterable[bytes], *, first_line: int, batch_rows: int, dialect: str
) -> Iterator[tuple[pl.DataFrame, list[Reject]]]:
    """Decode and type-check each line; yields (records, rejects) every `batch_rows` records."""
    wire = wire_of(dialect)
    rows: list[dict[str, Any]] = []
    rejects: list[Reject] = []
    for number, raw in enumerate(lines, start=first_line):
        text = raw.strip()
        if not text:
            continue
        try:
            records = _records_of(json_values.loads(text))
            for record in records:
                for name in KEY_FIELDS:
                    _check_key(record.get(name), wire.dtypes[name], name)
        except (ValueError, _TypeMismatch) as exc:
            reason = f"malformed JSON: {exc}" if isinstance(exc, json.JSONDecodeError) else str(exc)
            rejects.append(Reject(number, reason, truncate_line(text)))
            continue
        for record in records:
            extra = _unknown_parts(record, wire)
            row: dict[str, Any] = {}
            for name, dtype in wire.dtypes.items():
                typed, kept = _tolerant(_known_value(record.get(name), dtype), dtype, keys=ELEMENT_KEYS.get(name, ()))
                row[name] = typed
                if kept is not _MISSING:
                    extra = _merged(extra, {name: kept})
            if row["day"] is not None:
                row["day"] = date.fromisoformat(row["day"])
            row[LINE] = number
            row[EXTRA] = json_values.dumps(extra) if extra else None
            rows.append(row)
        if len(rows) >= batch_rows:
            yield _frame(rows, wire), rejects
            rows, rejects = [], []
    if rows or rejects:
        yield _frame(rows, wire), rejects


def _members(dtype: pl.Struct) -> dict[str, pl.DataType]:
    return {f.name: dtype_of(f.dtype) for f in dtype.fields}


def _known_value(value: object, dtype: pl.DataType) -> object:
    """The value with the members its type does not know left out (they are in `_extra`)."""
    if isinstance(dtype, pl.Struct) and isinstance(value, dict):
        return {name: _known_value(value.get(name), member) for name, member in _members(dtype).items()}
    if isinstance(dtype, pl.List) and isinstance(value, list):
        return [_known_value(item, dtype_of(dtype.inner)) for item in value]
    return value


def _unknown_members(value: dict[str, Any], dtype: pl.Struct) -> dict[str, Any]:
    """A known object's non-null unknown members, and those of its known objects, at any depth."""
    known = _members(dtype)
    out = {k: v for k, v in value.items() if k not in known and v is not None}
    for name, member_dtype in known.items():
        member = value.get(name)
        if isinstance(member_dtype, pl.Struct) and isinstance(member, dict):
            inner = _unknown_members(member, member_dtype)
            if inner:
                out[name] = inner
    return out


def _unknown_parts(record: dict[str, Any], wire: Wire) -> dict[str, Any]:
    """What the schema does not know, shaped as the fast path's `_extra_expr` shapes it."""
    out = {k: v for k, v in record.items() if k not in wire.known and v is not None}
    for name, dtype in wire.dtypes.items():
        value = record.get(name)
        if isinstance(dtype, pl.Struct) and isinstance(value, dict):
            members = _unknown_members(value, dtype)
            if members:
                out[name] = members
        elif isinstance(dtype, pl.List) and isinstance(dtype.inner, pl.Struct) and isinstance(value, list):
            elements = []
            for item in value:
                members = _unknown_members(item, dtype.inner)
                if members:
                    elements.append({**{k: item.get(k) for k in ELEMENT_KEYS[name]}, **members})
            if elements:
                out[name] = elements
    return out


def _frame(rows: list[dict[str, Any]], wire: Wire) -> pl.DataFrame:
    if not rows:
        return empty_records()
    return canonical(pl.DataFrame(rows, schema=wire.frame_schema, strict=False), wire)


def truncate_line(text: bytes) -> str:
    """What a quarantine row keeps of a line: its first LINE_TEXT_LIMIT bytes, as text."""
    return text[:LINE_TEXT_LIMIT].decode("utf-8", errors="replace")


def line_texts(data: bytes, numbers: set[int], *, first_line: int) -> dict[int, str]:
    """The (truncated) text of a few lines of a segment, by line number."""
    found: dict[int, str] = {}
    if not numbers:
        return found
    last = max(numbers)
    for number, raw in enumerate(data.split(b"\n"), start=first_line):
        if number in numbers:
            found[number] = truncate_line(raw.rstrip(b"\r"))
        if number >= last:
            break
    return found
