"""A dialect's record under its wire names, and how both parse paths make it canonical.

Each dialect is read under its own wire names (schema.WIRE_NAMES) and handed on under the
canonical ones, so `pull_requests.total_created_by_copilot` lands where the service
dialect's `total_created_by_assistant` does.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import polars as pl
import pyarrow as pa
import pyarrow.json as pa_json

from pipelines.transform.records import EXTRA, LINE, empty_records
from pipelines.transform.schema import (
    ADOPTION_PHASE_FIELD,
    BREAKDOWN_ARRAYS,
    CUSTOMIZATION_ARRAYS,
    FORMER_NAMES,
    WIRE_NAMES,
    record_dtype,
)

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


def dtype_of(dtype: object) -> pl.DataType:
    """`dtype` as the instance it always is at run time.

    Polars annotates `List.inner` and `Field.dtype` as a type class or an instance, but its
    constructors store them parsed into instances; this says so to the type checker.
    """
    if isinstance(dtype, pl.DataType):
        return dtype
    raise TypeError(f"expected a polars data type instance, got {dtype!r}")


def struct_of(dtype: object) -> pl.Struct:
    """`dtype`, which the caller knows to be a struct type, as one."""
    if isinstance(dtype, pl.Struct):
        return dtype
    raise TypeError(f"expected a polars struct type, got {dtype!r}")


def _arrow_type(dtype: pl.DataType) -> pa.DataType:
    if isinstance(dtype, pl.List):
        return pa.list_(_arrow_type(dtype_of(dtype.inner)))
    if isinstance(dtype, pl.Struct):
        return pa.struct([(f.name, _arrow_type(dtype_of(f.dtype))) for f in dtype.fields])
    return _ARROW_SCALARS[type(dtype)]


@dataclass(frozen=True)
class Wire:
    """One dialect's record under its wire names, and how its columns become canonical."""

    dtypes: dict[str, pl.DataType]
    known: frozenset[str]
    arrow_schema: pa.Schema
    parse_options: pa_json.ParseOptions
    frame_schema: pl.Schema  # what both paths build before `canonical` (decimals as floats)
    renames: dict[str, str]  # top-level wire name -> canonical name
    member_names: dict[str, list[str]]  # object (wire name) -> its canonical member names, in order
    # (object, array member), both wire names -> the canonical names of the array's elements' fields
    element_names: dict[tuple[str, str], list[str]]
    formers: dict[str, str]  # a former wire name of a renamed field -> its current wire name
    # The parsed-record schema, made once with the wire (building it costs ~1 ms a segment).
    canonical_schema: pl.Schema


@cache
def wire_of(dialect: str) -> Wire:
    if dialect not in WIRE_NAMES:
        raise ValueError(f"unknown dialect {dialect!r}; expected one of {sorted(WIRE_NAMES)}")
    current = record_dtype(dialect)
    canonical = record_dtype()
    # A renamed field is read under its former names too, typed as it is, and coalesced into it.
    renamed = {c: w for w, c in zip(current, canonical, strict=True)}
    formers = {old: renamed[name] for name, olds in FORMER_NAMES[dialect].items() for old in olds}
    dtypes = {**current, **{old: current[now] for old, now in formers.items()}}
    arrow_schema = pa.schema([(name, _arrow_type(dtype)) for name, dtype in dtypes.items()])
    read = {name: pl.Float64() if isinstance(d, pl.Decimal) else d for name, d in dtypes.items()}
    return Wire(
        dtypes=dtypes,
        known=frozenset(dtypes),
        arrow_schema=arrow_schema,
        parse_options=pa_json.ParseOptions(explicit_schema=arrow_schema, unexpected_field_behavior="infer"),
        frame_schema=pl.Schema({**read, LINE: pl.Int64(), EXTRA: pl.String()}),
        renames={w: c for w, c in zip(current, canonical, strict=True) if w != c},
        member_names={
            w: [f.name for f in struct_of(canonical[c]).fields]
            for w, c in zip(current, canonical, strict=True)
            if isinstance(current[w], pl.Struct) and current[w] != canonical[c]
        },
        element_names={
            (w, f.name): [e.name for e in struct_of(dtype_of(g.dtype).inner).fields]  # type: ignore[attr-defined]
            for w, c in zip(current, canonical, strict=True)
            if isinstance(current[w], pl.Struct)
            for f, g in zip(struct_of(current[w]).fields, struct_of(canonical[c]).fields, strict=True)
            if isinstance(dtype_of(f.dtype), pl.List) and dtype_of(f.dtype) != dtype_of(g.dtype)
        },
        formers=formers,
        canonical_schema=empty_records().schema,
    )


def canonical(frame: pl.DataFrame, wire: Wire) -> pl.DataFrame:
    """The parsed frame under canonical names and types (decimals rounded to their scale)."""
    if wire.formers:
        frame = frame.with_columns(pl.coalesce(now, old).alias(now) for old, now in wire.formers.items()).drop(
            list(wire.formers)
        )
    for (obj, member), names in wire.element_names.items():
        frame = frame.with_columns(
            pl.col(obj).struct.with_fields(pl.field(member).list.eval(pl.element().struct.rename_fields(names)))
        )
    renamed = frame.with_columns(pl.col(obj).struct.rename_fields(names) for obj, names in wire.member_names.items())
    return renamed.rename(wire.renames).cast(wire.canonical_schema)


# Breakdown and agent elements are told apart in `_extra` by their key fields.
ELEMENT_KEYS = (
    {field: keys for field, keys in BREAKDOWN_ARRAYS.values()}
    | {"totals_by_3rd_party_agent": ("agent_id",)}
    | {field: (category,) for category, field in CUSTOMIZATION_ARRAYS.items()}
    | {ADOPTION_PHASE_FIELD: ("phase_number",)}
)
