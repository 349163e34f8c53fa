"""NDJSON report files -> frames of parsed records (schema.record_dtype + _line + _extra).

Two paths. The fast one is PyArrow's JSON reader with the record schema given explicitly and
unexpected fields inferred, handed to Polars as Arrow: one pass over the bytes that is strict
about types (a "yes" where a boolean belongs, 1.5 where a count belongs, "12" where a number
belongs all fail) and keeps fields the schema does not know, at any depth. It is
all-or-nothing for what it is given, so `read_segment` halves a refused segment until the
pieces around the bad lines are small, and the line path reads those: each line is decoded
and type-checked on its own, bad lines become rejects with their line number and reason, and
the good ones still land. Both paths put unknown fields in `_extra` the same way.

Each dialect is read under its own wire names (schema.WIRE_NAMES) and handed on under the
canonical ones, so `pull_requests.total_created_by_copilot` lands where the spec's
`total_created_by_assistant` does.
"""

from __future__ import annotations

import io
import json
import math
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from functools import cache

import polars as pl
import pyarrow as pa
import pyarrow.json as pa_json

from pipelines.transform.records import EXTRA, LINE, empty_records
from pipelines.transform.schema import BREAKDOWN_ARRAYS, DAY_TOTALS_WRAPPER, WIRE_NAMES, record_dtype

LINE_TEXT_LIMIT = 2000
# A refused piece is halved until it is this small; only then does the line path (about nine
# times slower) read it, so one bad line costs a few hundred lines of slow parsing, not 10,000.
LINE_PATH_LINES = 500
# A segment (~15 MB) parses as one block on the parser thread: the three stages already keep
# both cores busy, and PyArrow's own threads only added memory (two blocks in flight, +50 MB).
_BLOCK_BYTES = 16 << 20

_ARROW_SCALARS = {
    # Dates are read as text and parsed strictly afterwards: the JSON reader wants numbers.
    pl.Date: pa.string(),
    pl.String: pa.string(),
    pl.Int64: pa.int64(),
    pl.Boolean: pa.bool_(),
    pl.Float64: pa.float64(),
    # A decimal arrives as a JSON number: read as one (strict: "12.5" and true are refused, as
    # on the line path) and rounded to the column's scale. PyArrow's decimal reader would take
    # "12.5" too and refuse a seventh decimal digit of float noise, losing the user's line.
    pl.Decimal: pa.float64(),
}


class FastPathRefused(Exception):
    """The fast reader refused a file (malformed or mistyped somewhere); use the line path."""


@dataclass(frozen=True)
class Reject:
    line_number: int
    reason: str
    line_text: str | None


def _arrow_type(dtype: pl.DataType) -> pa.DataType:
    if isinstance(dtype, pl.List):
        return pa.list_(_arrow_type(dtype.inner))
    if isinstance(dtype, pl.Struct):
        return pa.struct([(f.name, _arrow_type(f.dtype)) for f in dtype.fields])
    return _ARROW_SCALARS[type(dtype)]


@dataclass(frozen=True)
class _Wire:
    """One dialect's record under its wire names, and how its columns become canonical."""

    dtypes: dict[str, pl.DataType]
    known: frozenset[str]
    arrow_schema: pa.Schema
    parse_options: pa_json.ParseOptions
    frame_schema: pl.Schema  # what both paths build before `_canonical` (decimals as floats)
    renames: dict[str, str]  # top-level wire name -> canonical name
    member_names: dict[str, list[str]]  # object (wire name) -> its canonical member names, in order


@cache
def _wire(dialect: str) -> _Wire:
    if dialect not in WIRE_NAMES:
        raise ValueError(f"unknown dialect {dialect!r}; expected one of {sorted(WIRE_NAMES)}")
    dtypes = record_dtype(dialect)
    canonical = record_dtype()
    arrow_schema = pa.schema([(name, _arrow_type(dtype)) for name, dtype in dtypes.items()])
    read = {name: pl.Float64() if isinstance(d, pl.Decimal) else d for name, d in dtypes.items()}
    return _Wire(
        dtypes=dtypes,
        known=frozenset(dtypes),
        arrow_schema=arrow_schema,
        parse_options=pa_json.ParseOptions(explicit_schema=arrow_schema, unexpected_field_behavior="infer"),
        frame_schema=pl.Schema({**read, LINE: pl.Int64(), EXTRA: pl.String()}),
        renames={w: c for w, c in zip(dtypes, canonical) if w != c},
        member_names={
            w: [f.name for f in canonical[c].fields]
            for w, c in zip(dtypes, canonical)
            if isinstance(dtypes[w], pl.Struct) and dtypes[w] != canonical[c]
        },
    )


def _canonical(frame: pl.DataFrame, wire: _Wire) -> pl.DataFrame:
    """The parsed frame under canonical names and types (decimals rounded to their scale)."""
    renamed = frame.with_columns(pl.col(obj).struct.rename_fields(names) for obj, names in wire.member_names.items())
    return renamed.rename(wire.renames).cast(empty_records().schema)


# Breakdown and agent elements are told apart in `_extra` by their key fields.
_ELEMENT_KEYS = {field: keys for field, keys in BREAKDOWN_ARRAYS.values()} | {"totals_by_3rd_party_agent": ("agent_id",)}


def read_fast(data: bytes, *, first_line: int, lines: int, dialect: str) -> pl.DataFrame:
    """Parse `lines` lines of NDJSON in one pass; raises FastPathRefused on bad input.

    Line numbers come from row order (the reader keeps it) starting at `first_line`. The
    reader skips blank and whitespace-only lines, so fewer rows than lines means row order
    no longer gives line numbers: refused too, the line path numbers them exactly.
    """
    wire = _wire(dialect)
    try:
        options = pa_json.ReadOptions(block_size=_BLOCK_BYTES, use_threads=False)
        table = pa_json.read_json(pa.BufferReader(data), read_options=options, parse_options=wire.parse_options)
        as_text = _temporal_as_text(table.schema)
        if as_text != table.schema:
            # The reader turned an unknown field's date-like text into a timestamp, which would
            # not give the text back: read the segment again with those fields as text.
            table = pa_json.read_json(
                pa.BufferReader(data),
                read_options=options,
                parse_options=pa_json.ParseOptions(explicit_schema=as_text, unexpected_field_behavior="infer"),
            )
        if table.num_rows != lines:
            raise FastPathRefused(f"{lines - table.num_rows} blank lines")
        frame = pl.from_arrow(table)
        assert isinstance(frame, pl.DataFrame)
        day = pl.col("day")
        if frame.select((day.is_not_null() & (day.str.len_bytes() != 10)).any()).item():
            raise FastPathRefused("a day is not YYYY-MM-DD")
        known = [_known_column(name, dtype, frame.schema[name]) for name, dtype in wire.dtypes.items()]
        selected = frame.select(
            *known,
            pl.int_range(first_line, first_line + frame.height, dtype=pl.Int64()).alias(LINE),
            _extra_expr(frame.schema, wire.dtypes).alias(EXTRA),
        )
        return _canonical(selected, wire)
    except (pa.ArrowException, pl.exceptions.PolarsError) as exc:
        raise FastPathRefused(str(exc)[:200]) from None


def _temporal_type_as_text(t: pa.DataType) -> pa.DataType:
    if pa.types.is_temporal(t):
        return pa.string()
    if pa.types.is_list(t):
        return pa.list_(_temporal_type_as_text(t.value_type))
    if pa.types.is_struct(t):
        return pa.struct([(f.name, _temporal_type_as_text(f.type)) for f in t])
    return t


def _temporal_as_text(schema: pa.Schema) -> pa.Schema:
    return pa.schema([(f.name, _temporal_type_as_text(f.type)) for f in schema])


def _known_column(name: str, dtype: pl.DataType, read: pl.DataType) -> pl.Expr:
    """The column in its schema type, members the schema does not know left out."""
    col = pl.col(name)
    if isinstance(dtype, pl.Date):
        return col.str.to_date("%Y-%m-%d", strict=True)
    if read == dtype:
        return col
    if isinstance(dtype, pl.Struct):
        return pl.when(col.is_not_null()).then(pl.struct(_struct_members(col, dtype, read))).alias(name)
    if isinstance(dtype, pl.List) and isinstance(dtype.inner, pl.Struct):
        return col.list.eval(pl.struct(_struct_members(pl.element(), dtype.inner, read.inner))).alias(name)
    return col


def _struct_members(value: pl.Expr, dtype: pl.Struct, read: pl.Struct) -> list[pl.Expr]:
    read_fields = {f.name: f.dtype for f in read.fields}
    out = []
    for f in dtype.fields:
        member = value.struct.field(f.name)
        if isinstance(f.dtype, pl.Struct) and read_fields[f.name] != f.dtype:
            member = pl.when(member.is_not_null()).then(pl.struct(_struct_members(member, f.dtype, read_fields[f.name])))
        out.append(member.alias(f.name))
    return out


def _json_member(name: str, value: pl.Expr) -> pl.Expr:
    """`"name":<value as JSON>` (the braces of a one-field struct's JSON stripped)."""
    text = pl.struct(value.alias(name)).struct.json_encode()
    return text.str.slice(1, text.str.len_chars() - 2)


def _object_json(body_parts: list[pl.Expr]) -> pl.Expr:
    """`{part,part}` of the non-null parts, or null when every part is null."""
    body = pl.concat_str(body_parts, separator=",", ignore_nulls=True)
    return pl.when(body.str.len_bytes() > 0).then(pl.lit("{") + body + pl.lit("}"))


def _unknown_members_json(value: pl.Expr, dtype: pl.Struct, read: pl.Struct) -> pl.Expr | None:
    """JSON object of a known object's unknown members, at any depth (null when it has none);
    None when the reader found nothing the schema does not know in it."""
    if read == dtype:
        return None
    known = {f.name: f.dtype for f in dtype.fields}
    parts: list[pl.Expr] = []
    for f in read.fields:
        member = value.struct.field(f.name)
        if f.name not in known:
            parts.append(pl.when(member.is_not_null()).then(_json_member(f.name, member)))
        elif isinstance(known[f.name], pl.Struct):
            inner = _unknown_members_json(member, known[f.name], f.dtype)
            if inner is not None:
                parts.append(pl.lit(json.dumps(f.name) + ":") + inner)
    return _object_json(parts) if parts else None


def _extra_expr(read: pl.Schema, dtypes: dict[str, pl.DataType]) -> pl.Expr:
    """JSON of what the schema does not know: unknown top-level fields, and unknown members
    of known objects (at any depth) and of known array elements (with the element's key fields)."""
    parts: list[pl.Expr] = []
    for name, read_dtype in read.items():
        col = pl.col(name)
        if name not in dtypes:
            parts.append(pl.when(col.is_not_null()).then(_json_member(name, col)))
            continue
        dtype = dtypes[name]
        if read_dtype == dtype or not isinstance(dtype, (pl.Struct, pl.List)):
            continue
        if isinstance(dtype, pl.Struct):
            unknown = _unknown_members_json(col, dtype, read_dtype)
            if unknown is not None:
                parts.append(pl.lit(json.dumps(name) + ":") + unknown)
        elif isinstance(dtype, pl.List):
            element = pl.element()
            unknown = _unknown_members_json(element, dtype.inner, read_dtype.inner)
            if unknown is None:
                continue
            # An element with unknown members is kept as its key fields plus those members.
            keys = pl.concat_str([_json_member(k, element.struct.field(k)) for k in _ELEMENT_KEYS[name]], separator=",")
            carried = pl.lit("{") + keys + pl.lit(",") + unknown.str.slice(1)
            elements = col.list.eval(carried.drop_nulls())
            body = pl.lit(json.dumps(name) + ":[") + elements.list.join(",") + pl.lit("]")
            parts.append(pl.when(elements.list.len() > 0).then(body))
    if not parts:
        return pl.lit(None, dtype=pl.String())
    return _object_json(parts)


def read_segment(
    data: bytes, *, first_line: int, lines: int, batch_rows: int, dialect: str
) -> Iterator[tuple[pl.DataFrame, list[Reject]]]:
    """Parse a segment of user-level NDJSON: the fast path where it can, the line path for
    the small pieces around what it refuses. Yields (records, rejects) in line order."""
    try:
        frame = read_fast(data, first_line=first_line, lines=lines, dialect=dialect)
    except FastPathRefused:
        cut = _middle_line_end(data)
        if lines <= LINE_PATH_LINES or cut is None:
            yield from read_lines(io.BytesIO(data), first_line=first_line, batch_rows=batch_rows, dialect=dialect)
            return
        head_lines = data.count(b"\n", 0, cut)
        yield from read_segment(data[:cut], first_line=first_line, lines=head_lines, batch_rows=batch_rows, dialect=dialect)
        yield from read_segment(
            data[cut:], first_line=first_line + head_lines, lines=lines - head_lines, batch_rows=batch_rows, dialect=dialect
        )
        return
    yield frame, []


def _middle_line_end(data: bytes) -> int | None:
    """Offset just past the newline nearest the middle, or None if no such cut splits the data."""
    middle = len(data) // 2
    after = data.find(b"\n", middle)
    cut = after + 1 if after != -1 else data.rfind(b"\n", 0, middle) + 1
    return cut if 0 < cut < len(data) else None


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
        if ok:
            for i, item in enumerate(value):
                _check(item, dtype.inner, f"{where}[{i}]")
    elif isinstance(dtype, pl.Struct):
        ok = isinstance(value, dict)
        if ok:
            for f in dtype.fields:
                _check(value.get(f.name), f.dtype, f"{where}.{f.name}")
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


def _records_of(obj: object) -> list[dict]:
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
    wire = _wire(dialect)
    rows: list[dict] = []
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
            row = {name: _known_value(record.get(name), dtype) for name, dtype in wire.dtypes.items()}
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
    return {f.name: f.dtype for f in dtype.fields}


def _known_value(value: object, dtype: pl.DataType) -> object:
    """The value with the members its type does not know left out (they are in `_extra`)."""
    if isinstance(dtype, pl.Struct) and isinstance(value, dict):
        return {name: _known_value(value.get(name), member) for name, member in _members(dtype).items()}
    if isinstance(dtype, pl.List) and isinstance(value, list):
        return [_known_value(item, dtype.inner) for item in value]
    return value


def _unknown_members(value: dict, dtype: pl.Struct) -> dict:
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


def _unknown_parts(record: dict, wire: _Wire) -> dict:
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
                    elements.append({**{k: item.get(k) for k in _ELEMENT_KEYS[name]}, **members})
            if elements:
                out[name] = elements
    return out


def _frame(rows: list[dict], wire: _Wire) -> pl.DataFrame:
    if not rows:
        return empty_records()
    return _canonical(pl.DataFrame(rows, schema=wire.frame_schema, strict=False), wire)


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
