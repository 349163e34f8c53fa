"""An organization's seats (the seats extension of docs/extensions.md) → typed Polars frames.

Pure functions, no I/O. One row per (snapshot day, organization, seat holder); the listing's
`total_seats` goes to a table of its own, so an organization with no seat still has its total.
A seat without an assignee id cannot be keyed: it fails the whole organization's frame, naming
the organization and the seat's index in the listing, before anything lands.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import UTC, date, datetime
from typing import Any

import polars as pl

__all__ = ["SEATS_SCHEMA", "SEAT_TOTALS_SCHEMA", "SeatRecordError", "seat_totals_frame", "seats_frame"]

_TS = pl.Datetime("us", "UTC")

SEATS_SCHEMA: dict[str, pl.DataType] = {
    "snapshot_day": pl.Date(),
    "org_login": pl.String(),
    "user_id": pl.Int64(),
    "login": pl.String(),
    "assigning_team_id": pl.Int64(),
    "assigning_team_slug": pl.String(),
    "plan_type": pl.String(),
    "created_at": _TS,
    "updated_at": _TS,
    "pending_cancellation_date": pl.Date(),
    "last_activity_at": _TS,
    "last_activity_editor": pl.String(),
    "last_authenticated_at": _TS,
}

SEAT_TOTALS_SCHEMA: dict[str, pl.DataType] = {
    "snapshot_day": pl.Date(),
    "org_login": pl.String(),
    "total_seats": pl.Int64(),
}

_TIMESTAMPS = ("created_at", "updated_at", "last_activity_at", "last_authenticated_at")


class SeatRecordError(ValueError):
    """A seat the table cannot hold (no assignee id, a timestamp that is not one)."""


def seats_frame(*, records: Iterable[Mapping[str, Any]], day: date, org: str) -> pl.DataFrame:
    """One organization's seat listing → `snapshots.seats` rows, one per assignee.

    Timestamps are instants in UTC whatever offset the service wrote them with; a seat listed
    twice (it moved between pages while they were read) is kept once, as last seen.
    """
    rows = [_row(rec, index=index, day=day, org=org) for index, rec in enumerate(records)]
    frame = pl.DataFrame(rows, schema=SEATS_SCHEMA) if rows else pl.DataFrame(schema=SEATS_SCHEMA)
    return frame.unique(subset=["user_id"], keep="last", maintain_order=True).sort("user_id")


def seat_totals_frame(*, totals: Mapping[str, int], day: date) -> pl.DataFrame:
    """Organization → `total_seats` as its listing said → `snapshots.seat_totals` rows."""
    return pl.DataFrame(
        {"snapshot_day": [day] * len(totals), "org_login": list(totals), "total_seats": list(totals.values())},
        schema=SEAT_TOTALS_SCHEMA,
    ).sort("org_login")


def _row(rec: Mapping[str, Any], *, index: int, day: date, org: str) -> dict[str, Any]:
    assignee = rec.get("assignee") if isinstance(rec, Mapping) else None
    user_id = assignee.get("id") if isinstance(assignee, Mapping) else None
    if not isinstance(user_id, int) or isinstance(user_id, bool):
        raise SeatRecordError(f"seat {index} of organization {org!r} has no assignee id: {rec!r:.200}")
    assert isinstance(assignee, Mapping)
    team = rec.get("assigning_team")
    team = team if isinstance(team, Mapping) else {}
    row: dict[str, Any] = {
        "snapshot_day": day,
        "org_login": org,
        "user_id": user_id,
        "login": assignee.get("login"),
        "assigning_team_id": team.get("id"),
        "assigning_team_slug": team.get("slug"),
        "plan_type": rec.get("plan_type"),
        "pending_cancellation_date": _day(rec.get("pending_cancellation_date"), index=index, org=org),
        "last_activity_editor": rec.get("last_activity_editor"),
    }
    for name in _TIMESTAMPS:
        row[name] = _instant(rec.get(name), field=name, index=index, org=org)
    return {name: row[name] for name in SEATS_SCHEMA}


def _instant(value: Any, *, field: str, index: int, org: str) -> datetime | None:
    if value is None:
        return None
    try:
        parsed = datetime.fromisoformat(value)
    except (TypeError, ValueError):
        raise SeatRecordError(f"seat {index} of organization {org!r}: {field} {value!r} is not a timestamp") from None
    # The service writes offsets ("-06:00" or "Z"); one without is taken as UTC, the service's zone.
    return parsed.replace(tzinfo=UTC) if parsed.tzinfo is None else parsed.astimezone(UTC)


def _day(value: Any, *, index: int, org: str) -> date | None:
    if value is None:
        return None
    try:
        return date.fromisoformat(value)
    except (TypeError, ValueError):
        raise SeatRecordError(
            f"seat {index} of organization {org!r}: pending_cancellation_date {value!r} is not a day"
        ) from None
