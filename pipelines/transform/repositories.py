"""repos-1-day report lines into rows: core.repository_days, core.repository_review_times and
core.repository_comment_types.

A line is one repository active that day. One that is not an object, names another day or
another scope's entity, has no integer `repo_id`, or repeats an array entry's key, is refused
with its reason; the others still land. A repository on two lines lands once when they are the
same line, and not at all when they differ (`repeats.py`: the caller quarantines those lines).
Outside those keys types are tolerant, as for the daily records: a value that does not fit
lands NULL and is kept, with every field not declared, in the row's `extra`. The pull-request
members are the aggregate record's own (RECORD_OBJECTS), read under the dialect's wire names
(WIRE_NAMES).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

import polars as pl

from pipelines.transform import json_values
from pipelines.transform.columns import polars_types
from pipelines.transform.finality import finality_columns
from pipelines.transform.repeats import KeyedLines, RefusedLine
from pipelines.transform.schema import (
    COMMENT_TYPE_ENTRY,
    COMMENT_TYPES_FIELD,
    ENTITY_ID_FIELDS,
    RECORD_OBJECTS,
    REVIEW_TIME_ENTRY,
    REVIEW_TIMES_FIELD,
    WIRE_NAMES,
)

__all__ = ["RepositoryRows", "repository_rows"]

_PULLS = "pull_requests"
# The object's scalar members (its comment-type array lands as rows of its own).
_MEMBERS: dict[str, pl.DataType] = {
    m: dtype for m, dtype in RECORD_OBJECTS[_PULLS][0].items() if not isinstance(dtype, pl.List)
}
_CONTEXT = ("scope", "scope_name", "day")
_FINALITY = ("fetched_at", "is_final")
# Where each of a line's rows lands: the repository's day, its review times, its comment types.
# Which tables the repos report lands is the catalog's (writer="repos"), which the landing loops
# over; tests/unit/ingest/test_kinds.py holds these to it.
_DAYS = "core.repository_days"
_REVIEWS = "core.repository_review_times"
_COMMENTS = "core.repository_comment_types"
_LINE_ROWS = (_DAYS, _REVIEWS, _COMMENTS)


def _columns(name: str) -> dict[str, pl.DataType]:
    """The table's columns beside the context and finality, in order: its declaration's."""
    return polars_types(name, leave_out=frozenset({*_CONTEXT, *_FINALITY}))


# The fields a line names as its columns do: the repository's own (its table's but the object's and extra).
_REPOSITORY = frozenset(c for c in _columns(_DAYS) if c != "extra" and not c.startswith(f"{_PULLS}_"))
_KNOWN = frozenset({"day", *_REPOSITORY, _PULLS, REVIEW_TIMES_FIELD})
_INT64 = range(-(2**63), 2**63)


@dataclass(frozen=True)
class RepositoryRows:
    frames: dict[str, pl.DataFrame]  # a frame per table a line lands in, with context and finality
    refused: list[tuple[int, str]]  # (line number, reason)
    lines: list[int]  # the line of each row of core.repository_days
    keyed: KeyedLines  # the lines of a repository listed more than once (places (0, line))


def _fits(value: Any, dtype: pl.DataType) -> bool:
    if value is None:
        return True
    if isinstance(dtype, pl.Int64):
        # JSON true is a Python int; a count never is a boolean.
        return isinstance(value, int) and not isinstance(value, bool) and value in _INT64
    if isinstance(dtype, pl.Float64):
        return isinstance(value, int | float) and not isinstance(value, bool)
    return isinstance(value, str)


class _Line:
    """One line's rows under construction, and what did not fit (its `extra`)."""

    def __init__(self, dialect: str) -> None:
        self.wire = WIRE_NAMES[dialect]
        self.extra: dict[str, Any] = {}

    def typed(self, source: dict[str, Any], name: str, dtype: pl.DataType, path: str) -> Any:
        value = source.get(name)
        if _fits(value, dtype):
            return float(value) if isinstance(dtype, pl.Float64) and value is not None else value
        self.extra[path] = value
        return None

    def entries(
        self, value: Any, path: str, element: dict[str, pl.DataType], key: tuple[str, ...], wire: dict[str, str]
    ) -> list[dict[str, Any]]:
        """An array's entries under canonical names; its key strings are required and unique."""
        if value is None:
            return []
        if not isinstance(value, list):
            self.extra[path] = value
            return []
        rows, seen = [], set()
        for index, entry in enumerate(value):
            if not isinstance(entry, dict):
                raise ValueError(f"{path}[{index}] is not an object")
            keys = tuple(entry.get(wire.get(k, k)) for k in key)
            if not all(isinstance(k, str) and k for k in keys):
                raise ValueError(f"{path}[{index}] has no {' and '.join(key)}")
            if keys in seen:
                raise ValueError(f"{path} lists {' '.join(str(k) for k in keys)} twice")
            seen.add(keys)
            names = {wire.get(m, m): m for m in element}
            rows.append({m: self.typed(entry, w, element[m], f"{path}[{index}].{w}") for w, m in names.items()})
            self.extra |= {f"{path}[{index}].{k}": v for k, v in entry.items() if k not in names}
        return rows


def _repository(
    record: dict[str, Any], line: _Line, *, scope: str, day: date, entity_id: str | None
) -> tuple[dict[str, Any], list[dict[str, Any]], list[dict[str, Any]]]:
    if record.get("day") != day.isoformat():
        raise ValueError(f"day {json.dumps(record.get('day'))[:40]} is not the report's day {day}")
    repo_id = record.get("repo_id")
    if isinstance(repo_id, bool) or not isinstance(repo_id, int) or repo_id not in _INT64:
        raise ValueError(f"repo_id is not an integer id ({json.dumps(repo_id)[:40]})")
    field = ENTITY_ID_FIELDS[scope]
    entity = record.get(field)
    if entity_id is not None and entity is not None and str(entity) != entity_id:
        raise ValueError(f"{field} {entity} is not this {scope}'s ({entity_id})")
    try:
        return _repository_rows(record, line, repo_id)
    except ValueError as exc:
        raise RefusedLine(str(exc), repo_id) from None


def _repository_rows(
    record: dict[str, Any], line: _Line, repo_id: int
) -> tuple[dict[str, Any], list[dict[str, Any]], list[dict[str, Any]]]:
    row: dict[str, Any] = {}
    for name in ("enterprise_id", "organization_id"):
        value = record.get(name)
        row[name] = None if value is None or isinstance(value, bool) else str(value)
    for name in ("repo_owner_name", "repo_name", "repo_visibility"):
        row[name] = line.typed(record, name, pl.String(), name)
    row["repo_id"] = repo_id
    pulls = record.get(_PULLS)
    if pulls is not None and not isinstance(pulls, dict):
        line.extra[_PULLS] = pulls
        pulls = None
    pulls = pulls or {}
    members = {line.wire.get((_PULLS, m), m): m for m in _MEMBERS}
    for wire, member in members.items():
        row[f"{_PULLS}_{member}"] = line.typed(pulls, wire, _MEMBERS[member], f"{_PULLS}.{wire}")
    comments_wire = line.wire.get((_PULLS, COMMENT_TYPES_FIELD), COMMENT_TYPES_FIELD)
    comment_names = {m: line.wire.get((_PULLS, COMMENT_TYPES_FIELD, m), m) for m in COMMENT_TYPE_ENTRY}
    comments = line.entries(
        pulls.get(comments_wire), f"{_PULLS}.{comments_wire}", COMMENT_TYPE_ENTRY, ("comment_type",), comment_names
    )
    line.extra |= {f"{_PULLS}.{k}": v for k, v in pulls.items() if k not in members and k != comments_wire}
    reviews = line.entries(
        record.get(REVIEW_TIMES_FIELD), REVIEW_TIMES_FIELD, REVIEW_TIME_ENTRY, ("authored_by", "reviewed_by"), {}
    )
    line.extra |= {k: v for k, v in record.items() if k not in _KNOWN}
    row["extra"] = json_values.dumps(line.extra) if line.extra else None
    return row, [{"repo_id": repo_id, **r} for r in reviews], [{"repo_id": repo_id, **c} for c in comments]


def repository_rows(
    lines: Iterable[tuple[int, bytes]],
    *,
    scope: str,
    scope_name: str,
    day: date,
    entity_id: str | None,
    dialect: str,
    fetched_at: datetime,
    served_at: datetime | None = None,
) -> RepositoryRows:
    """Rows of (line number, line) pairs; `entity_id` None takes any entity id."""
    found: dict[str, list[dict[str, Any]]] = {name: [] for name in _LINE_ROWS}
    refused: list[tuple[int, str]] = []
    keyed = KeyedLines()
    numbers: list[int] = []
    for number, text in lines:
        if not text.strip():
            continue
        try:
            record = json_values.loads(text)
            if not isinstance(record, dict):
                raise ValueError("not a JSON object")
            row, reviews, comments = _repository(record, _Line(dialect), scope=scope, day=day, entity_id=entity_id)
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            refused.append((number, f"not JSON ({type(exc).__name__})"))
            continue
        except ValueError as exc:
            refused.append((number, str(exc)))
            if isinstance(exc, RefusedLine):
                keyed.refuse(exc.key, (0, number))
            continue
        if not keyed.add(row["repo_id"], (0, number), text):
            continue
        numbers.append(number)
        for name, rows in zip(_LINE_ROWS, ([row], reviews, comments), strict=True):
            found[name] += rows
    if keyed.conflicts:  # a repository on two different lines lands from neither
        kept = [r["repo_id"] not in keyed.conflicts for r in found[_DAYS]]
        numbers = [n for n, keep in zip(numbers, kept, strict=True) if keep]
        found = {name: [r for r in rows if r["repo_id"] not in keyed.conflicts] for name, rows in found.items()}
    context = [
        pl.lit(scope).alias("scope"),
        pl.lit(scope_name).alias("scope_name"),
        pl.lit(day, dtype=pl.Date()).alias("day"),
    ]
    frames = {
        name: pl.DataFrame(found[name], schema=_columns(name))
        .with_columns(context)
        .with_columns(finality_columns(fetched_at=fetched_at, served_at=served_at))
        .select(list(polars_types(name)))  # the table's order
        for name in _LINE_ROWS
    }
    return RepositoryRows(frames=frames, refused=refused, lines=numbers, keyed=keyed)
