"""The fast parse path: PyArrow's JSON reader, strict about types, all-or-nothing per block.

The record schema is given explicitly and unexpected fields are inferred, then handed to
Polars as Arrow: one pass over the bytes that refuses a "yes" where a boolean belongs, 1.5
where a count belongs, "12" where a number belongs, and keeps fields the schema does not know,
at any depth, in `_extra` (the line path, `_lines.py`, shapes it the same way).
"""

from __future__ import annotations

import json

import polars as pl
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.json as pa_json

from pipelines.ingest._wire import ELEMENT_KEYS, canonical, struct_of, wire_of
from pipelines.transform.records import EXTRA, LINE

# A segment (~15 MB) parses as one block on the parser thread: the three stages already keep
# both cores busy, and PyArrow's own threads only added memory (two blocks in flight, +50 MB).
BLOCK_BYTES = 16 << 20
# The reader's tables are made on the parser thread and freed on the landing thread. PyArrow's
# default pool (mimalloc) kept those freed blocks, so peak RSS held ~40 MB more than the system
# allocator, which gives blocks this large back at once (measured at 100,000 user-days: 412-422
# against 370-383 MB, with the same CPU).
_POOL = pa.system_memory_pool()


class FastPathRefused(Exception):
    """The fast reader refused a file (malformed or mistyped somewhere); use the line path."""


def read_fast(data: bytes, *, first_line: int, lines: int, dialect: str) -> pl.DataFrame:
    """Parse `lines` lines of NDJSON in one pass; raises FastPathRefused on bad input.

    Line numbers come from row order (the reader keeps it) starting at `first_line`. The
    reader skips blank and whitespace-only lines, so fewer rows than lines means row order
    no longer gives line numbers: refused too, the line path numbers them exactly.
    """
    wire = wire_of(dialect)
    try:
        options = pa_json.ReadOptions(block_size=BLOCK_BYTES, use_threads=False)
        table = pa_json.read_json(
            pa.BufferReader(data), read_options=options, parse_options=wire.parse_options, memory_pool=_POOL
        )
        as_text = _temporal_as_text(table.schema)
        if as_text != table.schema:
            # The reader turned an unknown field's date-like text into a timestamp, which would
            # not give the text back: read the segment again with those fields as text.
            table = pa_json.read_json(
                pa.BufferReader(data),
                read_options=options,
                parse_options=pa_json.ParseOptions(explicit_schema=as_text, unexpected_field_behavior="infer"),
                memory_pool=_POOL,
            )
        if table.num_rows != lines:
            raise FastPathRefused(f"{lines - table.num_rows} blank lines")
        if any(_not_finite(column) for column in table.columns):
            # 1e400 or NaN: the line path keeps the text as sent (json_values), this reader cannot.
            raise FastPathRefused("a number out of a double's range")
        frame = pl.from_arrow(table)
        assert isinstance(frame, pl.DataFrame)
        day = pl.col("day")
        if frame.select((day.is_not_null() & (day.str.len_bytes() != 10)).any()).item():
            raise FastPathRefused("a day is not YYYY-MM-DD")
        read = frame.schema  # built anew on every access: once per segment, not once per field
        known = [_known_column(name, dtype, read[name]) for name, dtype in wire.dtypes.items()]
        selected = frame.select(
            *known,
            pl.int_range(first_line, first_line + frame.height, dtype=pl.Int64()).alias(LINE),
            _extra_expr(read, wire.dtypes).alias(EXTRA),
        )
        return canonical(selected, wire)
    except (pa.ArrowException, pl.exceptions.PolarsError) as exc:
        raise FastPathRefused(str(exc)[:200]) from None


def _has_float(t: pa.DataType) -> bool:
    if pa.types.is_floating(t):
        return True
    if pa.types.is_list(t):
        return _has_float(t.value_type)
    if pa.types.is_struct(t):
        return any(_has_float(f.type) for f in t)
    return False


def _not_finite(column: pa.ChunkedArray | pa.Array) -> bool:
    """Whether any float anywhere in the column (members and elements too) is infinite or NaN;
    only the columns holding floats are looked at."""
    if not _has_float(column.type):
        return False
    chunks = column.chunks if isinstance(column, pa.ChunkedArray) else [column]
    for chunk in chunks:
        t = chunk.type
        if pa.types.is_floating(t):
            if pc.any(pc.invert(pc.is_finite(chunk))).as_py():
                return True
        elif pa.types.is_list(t):
            if _not_finite(chunk.flatten()):
                return True
        elif any(_not_finite(chunk.field(i)) for i in range(t.num_fields)):
            return True
    return False


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
        return pl.when(col.is_not_null()).then(pl.struct(_struct_members(col, dtype, struct_of(read)))).alias(name)
    if isinstance(dtype, pl.List) and isinstance(dtype.inner, pl.Struct):
        read_element = struct_of(_list_of(read).inner)
        return col.list.eval(pl.struct(_struct_members(pl.element(), dtype.inner, read_element))).alias(name)
    return col


def _list_of(dtype: pl.DataType) -> pl.List:
    """`dtype`, read where the schema has a list, as the list type it is."""
    if isinstance(dtype, pl.List):
        return dtype
    raise TypeError(f"expected a polars list type, got {dtype!r}")


def _struct_members(value: pl.Expr, dtype: pl.Struct, read: pl.Struct) -> list[pl.Expr]:
    read_fields = {f.name: f.dtype for f in read.fields}
    out = []
    for f in dtype.fields:
        member = value.struct.field(f.name)
        if isinstance(f.dtype, pl.Struct) and read_fields[f.name] != f.dtype:
            inner = _struct_members(member, f.dtype, struct_of(read_fields[f.name]))
            member = pl.when(member.is_not_null()).then(pl.struct(inner))
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
        elif isinstance(known_dtype := known[f.name], pl.Struct):
            inner = _unknown_members_json(member, known_dtype, struct_of(f.dtype))
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
            unknown = _unknown_members_json(col, dtype, struct_of(read_dtype))
            if unknown is not None:
                parts.append(pl.lit(json.dumps(name) + ":") + unknown)
        elif isinstance(dtype, pl.List):
            element = pl.element()
            unknown = _unknown_members_json(element, struct_of(dtype.inner), struct_of(_list_of(read_dtype).inner))
            if unknown is None:
                continue
            # An element with unknown members is kept as its key fields plus those members.
            keys = pl.concat_str([_json_member(k, element.struct.field(k)) for k in ELEMENT_KEYS[name]], separator=",")
            carried = pl.lit("{") + keys + pl.lit(",") + unknown.str.slice(1)
            elements = col.list.eval(carried.drop_nulls())
            body = pl.lit(json.dumps(name) + ":[") + elements.list.join(",") + pl.lit("]")
            parts.append(pl.when(elements.list.len() > 0).then(body))
    if not parts:
        return pl.lit(None, dtype=pl.String())
    return _object_json(parts)
