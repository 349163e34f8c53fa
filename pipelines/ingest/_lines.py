"""The line parse path: each line decoded and type-checked on its own.

About nine times slower than the fast path (`_fast.py`), it reads only the small pieces around
the lines the fast path refuses: bad lines become rejects with their line number and reason,
the good ones still land.
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
from pipelines.transform.records import EXTRA, LINE, empty_records
from pipelines.transform.schema import DAY_TOTALS_WRAPPER

LINE_TEXT_LIMIT = 2000


@dataclass(frozen=True)
class Reject:
    line_number: int
    reason: str
    line_text: str | None


class _TypeMismatch(ValueError):
    pass


def _check(value: object, dtype: pl.DataType, where: str) -> None:
    if value is None:
        return
    ok: bool
    if isinstance(dtype, pl.Int64):
        ok = isinstance(value, int) and not isinstance(value, bool) and -(2**63) <= value < 2**63
    elif isinstance(dtype, pl.Float64):
        ok = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
    elif isinstance(dtype, pl.Decimal):
        ok = isinstance(value, (int, float)) and not isinstance(value, bool) and _fits(value, dtype)
    elif isinstance(dtype, pl.Boolean):
        ok = isinstance(value, bool)
    elif isinstance(dtype, pl.String):
        ok = isinstance(value, str)
    elif isinstance(dtype, pl.Date):
        ok = isinstance(value, str) and _is_date(value)
    elif isinstance(dtype, pl.List):
        ok = isinstance(value, list)
        if isinstance(value, list):
            for i, item in enumerate(value):
                _check(item, dtype_of(dtype.inner), f"{where}[{i}]")
    elif isinstance(dtype, pl.Struct):
        ok = isinstance(value, dict)
        if isinstance(value, dict):
            for f in dtype.fields:
                _check(value.get(f.name), dtype_of(f.dtype), f"{where}.{f.name}")
    else:
        ok = False
    if not ok:
        raise _TypeMismatch(f"field {where}: expected {dtype}, got {type(value).__name__} {str(value)[:40]!r}")


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
            records = _records_of(json.loads(text))
            for record in records:
                for name, dtype in wire.dtypes.items():
                    _check(record.get(name), dtype, name)
        except (ValueError, _TypeMismatch) as exc:
            reason = f"malformed JSON: {exc}" if isinstance(exc, json.JSONDecodeError) else str(exc)
            rejects.append(Reject(number, reason, truncate_line(text)))
            continue
        for record in records:
            unknown = _unknown_parts(record, wire)
            row: dict[str, Any] = {name: _known_value(record.get(name), dtype) for name, dtype in wire.dtypes.items()}
            if row["day"] is not None:
                row["day"] = date.fromisoformat(row["day"])
            row[LINE] = number
            row[EXTRA] = json.dumps(unknown, separators=(",", ":")) if unknown else None
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
