"""NDJSON report files -> frames of parsed records (schema.record_dtype + _line + _extra).

Two paths. The fast one is DuckDB's `read_ndjson` with explicit columns, handed to Polars as
Arrow; it is all-or-nothing for a file, so when DuckDB rejects a file the line path takes
over: each line is decoded and type-checked on its own, bad lines become rejects with their
line number and reason, and the good ones still land.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import date
from pathlib import Path

import duckdb
import polars as pl

from pipelines.transform.records import EXTRA, LINE, empty_records
from pipelines.transform.schema import DAY_TOTALS_WRAPPER, KNOWN_FIELDS, record_dtype

LINE_TEXT_LIMIT = 2000

_DUCKDB_SCALARS = {
    pl.Date: "DATE",
    pl.String: "VARCHAR",
    pl.Int64: "BIGINT",
    pl.Boolean: "BOOLEAN",
    pl.Float64: "DOUBLE",
}


@dataclass(frozen=True)
class Reject:
    line_number: int
    reason: str
    line_text: str | None


def _duckdb_type(dtype: pl.DataType) -> str:
    if isinstance(dtype, pl.List):
        return f"{_duckdb_type(dtype.inner)}[]"
    if isinstance(dtype, pl.Struct):
        return "STRUCT(" + ", ".join(f'"{f.name}" {_duckdb_type(f.dtype)}' for f in dtype.fields) + ")"
    return _DUCKDB_SCALARS[type(dtype)]


_COLUMNS = {name: _duckdb_type(dtype) for name, dtype in record_dtype().items()}
_KNOWN_SORTED = sorted(KNOWN_FIELDS)
_UNKNOWN_KEYS_SQL = (
    "SELECT DISTINCT unnest(list_filter(json_keys(json), lambda k: NOT list_contains(?, k))) AS key "
    "FROM read_ndjson_objects(?) ORDER BY key"
)
_READ_SQL = "SELECT * FROM read_ndjson(?, columns = ?, format = 'newline_delimited')"


def read_fast(conn: duckdb.DuckDBPyConnection, path: Path, *, first_line: int) -> pl.DataFrame:
    """Parse a file with no blank lines through DuckDB; raises duckdb.Error on bad input.

    Line numbers come from row order (DuckDB preserves insertion order) starting at
    `first_line`. Unknown top-level fields are found by a key scan first, then read as JSON.
    """
    unknown = [row[0] for row in conn.execute(_UNKNOWN_KEYS_SQL, [_KNOWN_SORTED, str(path)]).fetchall()]
    columns = dict(_COLUMNS) | {key: "JSON" for key in unknown}
    table = conn.sql(_READ_SQL, params=[str(path), columns]).to_arrow_table()
    frame = pl.from_arrow(table)
    assert isinstance(frame, pl.DataFrame)
    extra = _extra_expr(unknown)
    return frame.select(
        *record_dtype(),
        pl.int_range(first_line, first_line + frame.height, dtype=pl.Int64()).alias(LINE),
        extra.alias(EXTRA),
    ).cast(empty_records().schema)


def _extra_expr(unknown: list[str]) -> pl.Expr:
    if not unknown:
        return pl.lit(None, dtype=pl.String())
    parts = [
        pl.when(pl.col(k).is_not_null()).then(pl.lit(json.dumps(k) + ":") + pl.col(k).cast(pl.String())) for k in unknown
    ]
    body = pl.concat_str(parts, separator=",", ignore_nulls=True)
    return pl.when(body.str.len_bytes() > 0).then(pl.lit("{") + body + pl.lit("}"))


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


def _is_date(text: str) -> bool:
    try:
        date.fromisoformat(text)
    except ValueError:
        return False
    return len(text) == 10


def _records_of(obj: object) -> list[dict]:
    """A line's records: the object itself, or the daily records of a `day_totals` wrapper."""
    if not isinstance(obj, dict):
        raise _TypeMismatch(f"expected a JSON object, got {type(obj).__name__}")
    if DAY_TOTALS_WRAPPER in obj and "day" not in obj:
        inner = obj[DAY_TOTALS_WRAPPER]
        if not isinstance(inner, list) or not all(isinstance(r, dict) for r in inner):
            raise _TypeMismatch(f"field {DAY_TOTALS_WRAPPER}: expected a list of objects")
        return inner
    return [obj]


_DTYPES = record_dtype()


def read_lines(lines: Iterable[bytes], *, first_line: int, batch_rows: int) -> Iterator[tuple[pl.DataFrame, list[Reject]]]:
    """Decode and type-check each line; yields (records, rejects) every `batch_rows` records."""
    rows: list[dict] = []
    rejects: list[Reject] = []
    for number, raw in enumerate(lines, start=first_line):
        text = raw.strip()
        if not text:
            continue
        try:
            records = _records_of(json.loads(text))
            for record in records:
                for name, dtype in _DTYPES.items():
                    _check(record.get(name), dtype, name)
        except (ValueError, _TypeMismatch) as exc:
            reason = f"malformed JSON: {exc}" if isinstance(exc, json.JSONDecodeError) else str(exc)
            rejects.append(Reject(number, reason, _truncate(text)))
            continue
        for record in records:
            unknown = {k: v for k, v in record.items() if k not in KNOWN_FIELDS}
            row = {name: record.get(name) for name in _DTYPES}
            if row["day"] is not None:
                row["day"] = date.fromisoformat(row["day"])
            row[LINE] = number
            row[EXTRA] = json.dumps(unknown, separators=(",", ":")) if unknown else None
            rows.append(row)
        if len(rows) >= batch_rows:
            yield _frame(rows), rejects
            rows, rejects = [], []
    if rows or rejects:
        yield _frame(rows), rejects


def _frame(rows: list[dict]) -> pl.DataFrame:
    if not rows:
        return empty_records()
    return pl.DataFrame(rows, schema=empty_records().schema, strict=False)


def _truncate(text: bytes) -> str:
    return text[:LINE_TEXT_LIMIT].decode("utf-8", errors="replace")


def line_texts(path: Path, numbers: set[int], *, first_line: int) -> dict[int, str]:
    """The (truncated) text of a few lines of a file, by line number."""
    found: dict[int, str] = {}
    if not numbers:
        return found
    last = max(numbers)
    with path.open("rb") as handle:
        for number, raw in enumerate(handle, start=first_line):
            if number in numbers:
                found[number] = _truncate(raw.rstrip(b"\r\n"))
            if number >= last:
                break
    return found
