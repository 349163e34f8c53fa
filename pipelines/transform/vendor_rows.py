"""A vendor's records as its tables' rows (docs/vendors.md): pure, no I/O.

Each record's declared fields (pipelines/vendors/wire.py, its endpoint's `fields` and `arrays`)
land in their columns, typed as the table declares them; a field no declaration names, or a
value of the wrong type (a text where a count goes), lands in the row's `extra` as it came (its
column NULL) and is counted as drift under its wire path, like the service's fields. A record
that names no one (no email, no API key name), is of a day the fetch did not ask for, or repeats
the key of an earlier record of its fetch lands nothing: its line is refused, with the reason, for
the quarantine. Money is Decimal (the lines are parsed so), never floating point.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date, datetime
from decimal import Decimal
from typing import Any

import polars as pl

from pipelines.transform.columns import polars_types
from pipelines.transform.emails import normal_email
from pipelines.transform.vendor_values import day_of, is_email, parse_line, record_text, typed, value_at
from pipelines.vendors.wire import Endpoint

__all__ = ["MISTYPED", "UNDECLARED", "VendorRows"]

UNDECLARED = "undeclared"
MISTYPED = "mistyped"
_JSON_TYPES = {dict: "object", list: "array", str: "string", bool: "boolean", int: "number", Decimal: "number"}


class Refused(Exception):
    """A record that cannot land: the reason is its quarantine row's."""


@dataclass
class VendorRows:
    """What one fetch's records bring: each table's rows, the lines refused, and the drift."""

    endpoint: Endpoint
    start: date  # the days the fetch asked for
    end: date
    read_day: date  # the vendor's day at the fetch: members' snapshot day, spend's read day
    fetched_at: datetime
    final_before: date | None  # the days before it were final at the fetch (None: none was)
    envelope: Mapping[str, Any] = field(default_factory=dict)
    rows: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    refused: list[tuple[int, str, str]] = field(default_factory=list)  # line number, reason, text
    drift: Counter[tuple[date, str, str]] = field(default_factory=Counter)
    types: dict[tuple[date, str, str], str] = field(default_factory=dict)
    _keys: dict[tuple[Any, ...], int] = field(default_factory=dict)

    def add(self, number: int, text: str) -> None:
        """One archived line: its rows, or its refusal."""
        try:
            record = parse_line(text)
            if not isinstance(record, dict):
                raise Refused("not a JSON object")
            self._add(number, record)
        except (ValueError, RecursionError) as exc:
            self.refused.append((number, f"not JSON: {exc}"[:200], text))
        except Refused as exc:
            self.refused.append((number, str(exc), text))

    def frame(self, table: str) -> pl.DataFrame:
        schema = polars_types(table)
        rows = self.rows.get(table, [])
        return pl.DataFrame([{c: row.get(c) for c in schema} for row in rows], schema=schema, orient="row")

    def _add(self, number: int, record: dict[str, Any]) -> None:
        endpoint = self.endpoint
        key = self._key(record)
        if key in self._keys:
            raise Refused(f"repeats the record of line {self._keys[key]} ({', '.join(map(str, key))})")
        day = key[0]
        drift_day = day if isinstance(day, date) else self.read_day
        row, extra = self._flatten(
            record, endpoint.fields, endpoint.table, drift_day, skip={a[0] for a in endpoint.arrays}
        )
        nested: list[tuple[str, dict[str, Any]]] = []
        for name, table, fields in endpoint.arrays:
            value = record.get(name)
            if value is None:
                continue
            if not isinstance(value, list) or not all(isinstance(e, dict) for e in value):
                extra[name] = value
                self._count(drift_day, name, value, MISTYPED)
                continue
            seen: set[object] = set()
            wire, column = next(iter(fields.items()))  # an element's first field is its key
            for element in value:
                element_row, element_extra = self._flatten(element, fields, table, drift_day, prefix=f"{name}[].")
                if not isinstance(element_row.get(column), str) or element_row[column] in seen:
                    raise Refused(f"a {name} element without a {wire} of its own")
                seen.add(element_row[column])
                element_row["extra"] = record_text(element_extra) if element_extra else None
                nested.append((table, element_row))
        common = self._common(key, record)
        row |= common
        row["extra"] = record_text(extra) if extra else None
        self._keys[key] = number
        self.rows.setdefault(endpoint.table, []).append(row)
        for table, element_row in nested:
            self.rows.setdefault(table, []).append(element_row | common)

    def _key(self, record: Mapping[str, Any]) -> tuple[Any, ...]:
        """The record's grain (wire.Endpoint.day, .who): its day, then who it is of."""
        column, source = self.endpoint.day
        if source == "date":
            day = day_of(record.get("date"))
            if day is None:
                raise Refused(f"its date {record.get('date')!r} is no day")
            if not self.start <= day <= self.end:
                raise Refused(f"its date {day} is not a day asked for ({self.start}..{self.end})")
        elif source == "read":
            day = self.read_day
        elif (day := day_of(self.envelope.get(source))) is None:
            raise Refused(f"the answer's {source} is no date: the record's {column} is unknown")
        key: list[Any] = [day]
        for _, paths in self.endpoint.who:
            found = next(((p, v) for p in paths if isinstance(v := value_at(record, p), str) and v), None)
            if found is None:
                raise Refused(f"no {' nor '.join(paths)}: it names no one")
            path, value = found
            key.append(normal_email(value) if is_email(path) else value)
        return tuple(key)

    def _common(self, key: tuple[Any, ...], record: Mapping[str, Any]) -> dict[str, Any]:
        """The key's columns, the email naming the person, and when it was fetched (and, on a usage
        table, whether its day was final; on a read of the vendor's state, the read's day)."""
        columns = [self.endpoint.day[0], *(column for column, _ in self.endpoint.who)]
        common: dict[str, Any] = dict(zip(columns, key, strict=True)) | {"fetched_at": self.fetched_at}
        emails = [value_at(record, p) for _, paths in self.endpoint.who for p in paths if is_email(p)]
        common["email"] = next((normal_email(e) for e in emails if isinstance(e, str) and e), None)
        declared = polars_types(self.endpoint.table)
        if "is_final" in declared:
            common["is_final"] = self._final(key[0])
        if "read_day" in declared:
            common["read_day"] = self.read_day
        for wire, column in self.endpoint.stamped:
            if (stamp := day_of(self.envelope.get(wire))) is None:
                raise Refused(f"the answer's {wire} is no date: the record's {column} is unknown")
            common[column] = stamp
        return common

    def _final(self, day: date) -> bool:
        return self.final_before is not None and day < self.final_before

    def _flatten(
        self,
        record: Mapping[str, Any],
        fields: Mapping[str, str],
        table: str,
        day: date,
        *,
        prefix: str = "",
        skip: set[str] | None = None,
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        """The declared fields in their columns, the rest (and the mistyped) in `extra`, as nested
        as they came; each counted as drift under its path."""
        types = polars_types(table)
        row: dict[str, Any] = {}
        extra: dict[str, Any] = {}
        stack: list[tuple[str, Mapping[str, Any], dict[str, Any]]] = [("", record, extra)]
        while stack:
            path, node, kept = stack.pop()
            for key, value in node.items():
                here = f"{path}{key}"
                if not path and skip and key in skip:
                    continue
                column = fields.get(here)
                if column is not None and column in types and column not in ("day", "email"):
                    row[column], ok = typed(value, types[column], column)
                    if not ok:
                        kept[key] = value
                        self._count(day, prefix + here, value, MISTYPED)
                elif column is not None:
                    continue  # a key column, read by _key
                elif isinstance(value, dict) and any(f.startswith(here + ".") for f in fields):
                    inner = _Declared()
                    stack.append((here + ".", value, inner))
                    kept[key] = inner
                else:
                    kept[key] = value
                    self._count(day, prefix + here, value, UNDECLARED)
        return row, _pruned(extra)

    def _count(self, day: date, path: str, value: object, drift: str) -> None:
        self.drift[(day, path, drift)] += 1
        self.types.setdefault((day, path, drift), _JSON_TYPES.get(type(value), "null" if value is None else "number"))


class _Declared(dict[str, Any]):
    """An object of declared fields, in `extra` only for what it held beyond them."""


def _pruned(extra: dict[str, Any]) -> dict[str, Any]:
    """`extra` without the declared objects that held nothing else (as plain dicts)."""
    out: dict[str, Any] = {}
    for key, value in extra.items():
        if isinstance(value, _Declared):
            inner = _pruned(value)
            if inner:
                out[key] = inner
        else:
            out[key] = value
    return out
