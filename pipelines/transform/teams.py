"""User-teams report lines into `core.user_team_days` rows (an extension: docs/extensions.md).

A line is one (user, team) of the day. One that is not an object of the right types, names
another day or another scope's entity, is refused with its reason; the others still land. A
(user, team) on two lines lands once when they are the same line, and not at all when they
differ (`repeats.py`: the caller quarantines those lines).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

import polars as pl

from pipelines.transform.columns import polars_types
from pipelines.transform.finality import finality_columns
from pipelines.transform.repeats import KeyedLines, RefusedLine

__all__ = ["USER_TEAM_SCHEMA", "TeamLine", "TeamRows", "user_team_rows"]

USER_TEAM_SCHEMA = polars_types("core.user_team_days")  # its declaration's (columns.py)
_ENTITY_FIELD = {"organization": "organization_id", "enterprise": "enterprise_id"}
_INT64 = range(-(2**63), 2**63)


@dataclass(frozen=True)
class TeamLine:
    """A refused line: its number in the file and why."""

    line_number: int
    reason: str


@dataclass(frozen=True)
class TeamRows:
    frame: pl.DataFrame  # USER_TEAM_SCHEMA
    refused: list[TeamLine]
    lines: list[int]  # the line of each row of `frame`
    keyed: KeyedLines  # the lines of a (user, team) listed more than once (places (0, line))


def _integer(record: dict[str, Any], name: str) -> int:
    value = record.get(name)
    # JSON true is a Python int; an id never is a boolean.
    if isinstance(value, bool) or not isinstance(value, int) or value not in _INT64:
        raise ValueError(f"{name} is not an integer id ({json.dumps(value)[:40]})")
    return value


def _text(record: dict[str, Any], name: str) -> str:
    value = record.get(name)
    if not isinstance(value, str) or not value:
        raise ValueError(f"{name} is not a non-empty string ({json.dumps(value)[:40]})")
    return value


def _row(line: bytes, *, scope: str, day: date, entity_id: str | None) -> tuple[int, str, str | None, int, str]:
    try:
        record = json.loads(line)
    except (ValueError, UnicodeDecodeError) as exc:
        raise ValueError(f"not JSON ({type(exc).__name__})") from None
    if not isinstance(record, dict):
        raise ValueError("not a JSON object")
    if record.get("day") != day.isoformat():
        raise ValueError(f"day {json.dumps(record.get('day'))[:40]} is not the report's day {day}")
    field = _ENTITY_FIELD[scope]
    entity = record.get(field)
    if entity is not None and not isinstance(entity, str | int):
        raise ValueError(f"{field} is not an id")
    entity_text = None if entity is None else str(entity)
    if entity_id is not None and entity_text is not None and entity_text != entity_id:
        raise ValueError(f"{field} {entity_text} is not this {scope}'s ({entity_id})")
    user_id, team_id = _integer(record, "user_id"), _integer(record, "team_id")
    login = record.get("user_login")
    try:
        if login is not None and not isinstance(login, str):
            raise ValueError("user_login is not a string")
        return user_id, login or "", entity_text, team_id, _text(record, "slug")
    except ValueError as exc:
        raise RefusedLine(str(exc), (user_id, team_id)) from None


def user_team_rows(
    lines: Iterable[tuple[int, bytes]],
    *,
    scope: str,
    scope_name: str,
    day: date,
    entity_id: str | None,
    fetched_at: datetime,
    served_at: datetime | None = None,
) -> TeamRows:
    """Rows of (line number, line) pairs; `entity_id` None takes any entity id."""
    rows: list[tuple[int, tuple[int, str, str | None, int, str]]] = []
    refused: list[TeamLine] = []
    keyed = KeyedLines()
    for number, line in lines:
        if not line.strip():
            continue
        try:
            row = _row(line, scope=scope, day=day, entity_id=entity_id)
        except ValueError as exc:
            refused.append(TeamLine(number, str(exc)))
            if isinstance(exc, RefusedLine):
                keyed.refuse(exc.key, (0, number))
            continue
        if keyed.add((row[0], row[3]), (0, number), line):
            rows.append((number, row))
    rows = [(number, row) for number, row in rows if (row[0], row[3]) not in keyed.conflicts]
    columns = ("user_id", "user_login", "entity_id", "team_id", "slug")
    frame = (
        pl.DataFrame(
            [row for _, row in rows],
            schema={k: USER_TEAM_SCHEMA[k] for k in columns},
            orient="row",
        )
        .with_columns(
            pl.lit(scope).alias("scope"),
            pl.lit(scope_name).alias("scope_name"),
            pl.lit(day, dtype=pl.Date()).alias("day"),
        )
        .with_columns(finality_columns(fetched_at=fetched_at, served_at=served_at))
    )
    return TeamRows(
        frame=frame.select(list(USER_TEAM_SCHEMA)), refused=refused, lines=[n for n, _ in rows], keyed=keyed
    )
