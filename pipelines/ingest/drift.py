"""What records carried that the schema does not declare, or not in the declared type.

Both reach a row's `extra` (docs/ingest.md): an undeclared field as it came, a mistyped value of
a declared field under its path. Each path is counted once per record, by day, and lands in
raw.field_drift with the report's rows, so a changed service is named where a person looks
(bi.field_drift, the `fields_are_declared` check, the run summary, `metrics-etl fields`).

Paths use the dialect's wire names; an array's elements are `name[]`, so
`totals_by_ide[].loc_added_sum` counts every element of the array alike. An undeclared field
is one path (its members are its own business); a declared element's key members (`ide`,
`agent_id`) ride along in `extra` to say which element, and count only when mistyped.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import date
from functools import lru_cache

import polars as pl

from pipelines.ingest._lines import scalar_fits
from pipelines.ingest._wire import ELEMENT_KEYS, dtype_of, wire_of
from pipelines.transform.schema import INTERNAL_FIELDS, WRAPPER_FIELDS

UNDECLARED = "undeclared"
MISTYPED = "mistyped"
_JSON_TYPES = {dict: "object", list: "array", str: "string", bool: "boolean", int: "number", float: "number"}


def declared_paths(dialect: str) -> list[tuple[str, str]]:
    """Every declared leaf field under `dialect`'s wire names, with its type, in record order."""
    out: list[tuple[str, str]] = []

    def walk(path: str, dtype: pl.DataType) -> None:
        if isinstance(dtype, pl.Struct):
            for f in dtype.fields:
                walk(f"{path}.{f.name}", dtype_of(f.dtype))
        elif isinstance(dtype, pl.List):
            walk(f"{path}[]", dtype_of(dtype.inner))
        else:
            out.append((path, str(dtype)))

    for name, dtype in wire_of(dialect).dtypes.items():
        walk(name, dtype)
    return [
        *out,
        *((name, "internal: kept in extra") for name in sorted(INTERNAL_FIELDS)),
        *((name, "28-day wrapper: kept in extra") for name in sorted(WRAPPER_FIELDS)),
    ]


def json_type(value: object) -> str:
    return _JSON_TYPES.get(type(value), "null")


def paths(extra: dict[str, object], dialect: str) -> Iterator[tuple[str, str, str]]:
    """(path, UNDECLARED or MISTYPED, JSON type of the value) for what one record's `extra` holds."""
    dtypes = wire_of(dialect).dtypes
    for name, value in extra.items():
        if name not in INTERNAL_FIELDS and name not in WRAPPER_FIELDS:
            yield from _walk(name, value, dtypes.get(name), keys=ELEMENT_KEYS.get(name, ()))


def _walk(
    path: str, value: object, dtype: pl.DataType | None, *, keys: tuple[str, ...] = ()
) -> Iterator[tuple[str, str, str]]:
    if dtype is None:
        yield path, UNDECLARED, json_type(value)
    elif isinstance(dtype, pl.Struct):
        if not isinstance(value, dict):
            yield path, MISTYPED, json_type(value)
            return
        members = {f.name: dtype_of(f.dtype) for f in dtype.fields}
        for name, member in value.items():
            if name in keys and scalar_fits(member, members[name]):
                continue  # says which element this is
            yield from _walk(f"{path}.{name}", member, members.get(name))
    elif isinstance(dtype, pl.List):
        if not isinstance(value, list):
            yield path, MISTYPED, json_type(value)
            return
        for item in value:
            yield from _walk(f"{path}[]", item, dtype_of(dtype.inner), keys=keys)
    elif not scalar_fits(value, dtype):
        yield path, MISTYPED, json_type(value)


@lru_cache(maxsize=4096)
def _parsed(text: str, dialect: str) -> frozenset[tuple[str, str, str]]:
    return frozenset(paths(json.loads(text), dialect))


@dataclass
class DriftTally:
    """Records per (day, path, drift) of one report, with a JSON type seen for each path."""

    dialect: str
    records: Counter[tuple[date, str, str]] = field(default_factory=Counter)
    types: dict[tuple[str, str], str] = field(default_factory=dict)

    def add(self, totals: pl.DataFrame, *, sign: int = 1) -> None:
        """Count the `extra` of a batch of totals rows (columns `day` and `extra`); sign -1
        takes rows back out (a repeated line's copy, lines quarantined after they landed)."""
        # Records of a day mostly carry the same extra (the service's internal fields, a new
        # field of the same value): each distinct text is parsed once, its records counted.
        carrying = totals.filter(pl.col("extra").is_not_null()).group_by("day", "extra").len()
        for day, text, count in carrying.iter_rows():
            for path, drift, kind in _parsed(text, self.dialect):
                self.records[day, path, drift] += sign * count
                self.types.setdefault((path, drift), kind)

    def count(self, *, day: date, path: str, drift: str, value: object) -> None:
        """Count one record (a seat) carrying `path` as `drift`, its value's JSON type seen."""
        self.records[day, path, drift] += 1
        self.types.setdefault((path, drift), json_type(value))

    def frame(self) -> pl.DataFrame:
        """One row per day, path and drift: the raw.field_drift rows, without their context."""
        rows = [
            {"day": day, "path": path, "drift": drift, "records": count, "json_type": self.types[path, drift]}
            for (day, path, drift), count in sorted(self.records.items())
            if count > 0
        ]
        schema = {
            "day": pl.Date(),
            "path": pl.String(),
            "drift": pl.String(),
            "records": pl.Int64(),
            "json_type": pl.String(),
        }
        return pl.DataFrame(rows, schema=schema)
