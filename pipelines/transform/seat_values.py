"""One listed seat → its columns' values as their types take them, or the reason it cannot land
(pipelines/transform/seats.py builds a listing's frames from them).

A value a column cannot take refuses the seat alone, naming its place in the listing and never
its holder; what the seat carried beyond the declared fields (seat_fields.py) is its `extra`.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, date, datetime
from typing import Any

import polars as pl

from pipelines.transform.seat_fields import SEAT_FIELDS, beyond, json_text

__all__ = ["SeatRecordError", "seat_columns"]


class SeatRecordError(ValueError):
    """A seat the table cannot hold (an assignee without an id, no grant, a timestamp that is not one)."""


def seat_columns(rec: Any, *, index: int, where: str, drift: list[tuple[str, str, object]]) -> dict[str, Any]:
    """The seat's columns (SEAT_FIELDS) and `extra`; `user_id` None for a seat whose assignee is
    null (unassigned). What it carried beyond the declarations is added to `drift`."""
    if not isinstance(rec, Mapping):
        raise SeatRecordError(f"seat {index} of {where} is not an object")
    extra, found = beyond(rec)
    drift += found
    assignee = rec.get("assignee")
    user_id = assignee.get("id") if isinstance(assignee, Mapping) else None
    if assignee is not None and (
        not isinstance(assignee, Mapping) or not isinstance(user_id, int) or isinstance(user_id, bool)
    ):
        # Its text is not repeated: it may name the person.
        raise SeatRecordError(f"seat {index} of {where} has an assignee without an integer id")
    row = {
        column: _typed(_at(rec, path), dtype, field=column, index=index, where=where)
        for path, (column, dtype) in SEAT_FIELDS.items()
    }
    row["extra"] = json_text(extra) if extra else None
    return row


def _utf8(text: str) -> bool:
    try:
        text.encode()
    except UnicodeEncodeError:  # a lone surrogate (half of a UTF-16 pair): no text column takes it
        return False
    return True


def _at(rec: Mapping[str, Any], path: tuple[str, ...]) -> Any:
    """The value at a declared path; None where an object on the way is null or not an object
    (a mistyped object is in `extra`)."""
    value: Any = rec
    for step in path:
        if not isinstance(value, Mapping):
            return None
        value = value.get(step)
    return value


_INT64 = range(-(2**63), 2**63)


def _typed(value: Any, dtype: pl.DataType, *, field: str, index: int, where: str) -> Any:
    """`value` as its column takes it; the seat is refused if the column cannot (a building frame
    would fail on it and take the whole listing with it). The value is not repeated when it is
    not a time: it may name the person."""
    if value is None:
        return None
    if isinstance(dtype, pl.Datetime):
        return _instant(value, field=field, index=index, where=where)
    if isinstance(dtype, pl.Date):
        return _day(value, field=field, index=index, where=where)
    if isinstance(dtype, pl.Int64):
        fits = isinstance(value, int) and not isinstance(value, bool) and value in _INT64
        kind = "an integer id"
    else:
        fits, kind = isinstance(value, str) and _utf8(value), "text"
    if not fits:
        raise SeatRecordError(f"seat {index} of {where}: {field} is not {kind}")
    return value


def _instant(value: Any, *, field: str, index: int, where: str) -> datetime:
    try:
        parsed = datetime.fromisoformat(value)
    except (TypeError, ValueError):
        raise SeatRecordError(f"seat {index} of {where}: {field} {value!r:.60} is not a timestamp") from None
    # The service writes offsets ("-06:00" or "Z"); one without is taken as UTC, the service's zone.
    return parsed.replace(tzinfo=UTC) if parsed.tzinfo is None else parsed.astimezone(UTC)


def _day(value: Any, *, field: str, index: int, where: str) -> date:
    try:
        return date.fromisoformat(value)
    except (TypeError, ValueError):
        raise SeatRecordError(f"seat {index} of {where}: {field} {value!r:.60} is not a day") from None
