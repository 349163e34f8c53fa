"""Seat listings (the seats extension of docs/extensions.md) → typed Polars frames.

Pure functions, no I/O. An organization's listing: one row per (snapshot day, organization,
seat holder). An enterprise's listing: one row per (snapshot day, enterprise, holder, grant),
since it lists a seat for each organization or enterprise team granting a user access. Each
listing's `total_seats` goes to a table of its own, so a scope with no seat still has its
total. A seat that cannot be keyed (no assignee id; in an enterprise, no grant to name) fails
the whole scope's frame, naming the scope and the seat's index in the listing, before
anything lands.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import UTC, date, datetime
from typing import Any

import polars as pl

__all__ = [
    "ENTERPRISE_SEATS_SCHEMA",
    "ENTERPRISE_SEAT_TOTALS_SCHEMA",
    "SEATS_SCHEMA",
    "SEAT_TOTALS_SCHEMA",
    "SeatRecordError",
    "enterprise_seat_totals_frame",
    "enterprise_seats_frame",
    "seat_totals_frame",
    "seats_frame",
]

_TS = pl.Datetime("us", "UTC")

# What a seat says, whichever listing it comes from.
_SEAT_COLUMNS: dict[str, pl.DataType] = {
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
    "organization_login": pl.String(),
    "assigning_team_type": pl.String(),
}

SEATS_SCHEMA: dict[str, pl.DataType] = {
    "snapshot_day": pl.Date(),
    "org_login": pl.String(),
    "user_id": pl.Int64(),
    **_SEAT_COLUMNS,
}

ENTERPRISE_SEATS_SCHEMA: dict[str, pl.DataType] = {
    "snapshot_day": pl.Date(),
    "enterprise": pl.String(),
    "user_id": pl.Int64(),
    "granted_through": pl.String(),
    "granted_by": pl.String(),
    "organization_id": pl.Int64(),
    **_SEAT_COLUMNS,
}

SEAT_TOTALS_SCHEMA: dict[str, pl.DataType] = {
    "snapshot_day": pl.Date(),
    "org_login": pl.String(),
    "total_seats": pl.Int64(),
}

ENTERPRISE_SEAT_TOTALS_SCHEMA: dict[str, pl.DataType] = {
    "snapshot_day": pl.Date(),
    "enterprise": pl.String(),
    "total_seats": pl.Int64(),
}

_TIMESTAMPS = ("created_at", "updated_at", "last_activity_at", "last_authenticated_at")


class SeatRecordError(ValueError):
    """A seat the table cannot hold (no assignee id, no grant, a timestamp that is not one)."""


def seats_frame(*, records: Iterable[Mapping[str, Any]], day: date, org: str) -> pl.DataFrame:
    """One organization's seat listing → `snapshots.seats` rows, one per assignee.

    Timestamps are instants in UTC whatever offset the service wrote them with; a seat listed
    twice (it moved between pages while they were read) is kept once, as last seen.
    """
    where = f"organization {org!r}"
    rows = [
        _ordered({"snapshot_day": day, "org_login": org} | _seat(rec, index=index, where=where), SEATS_SCHEMA)
        for index, rec in enumerate(records)
    ]
    frame = pl.DataFrame(rows, schema=SEATS_SCHEMA) if rows else pl.DataFrame(schema=SEATS_SCHEMA)
    return frame.unique(subset=["user_id"], keep="last", maintain_order=True).sort("user_id")


def enterprise_seats_frame(*, records: Iterable[Mapping[str, Any]], day: date, enterprise: str) -> pl.DataFrame:
    """One enterprise's seat listing → `snapshots.enterprise_seats` rows, one per holder and grant.

    The grant is the granting organization; without one, the enterprise team the seat came
    through; without either, the enterprise itself. A seat listed twice is kept once, as last seen.
    """
    where = f"enterprise {enterprise!r}"
    rows = []
    for index, rec in enumerate(records):
        row = _seat(rec, index=index, where=where)
        organization = rec.get("organization")
        organization = organization if isinstance(organization, Mapping) else {}
        through, by = _grant(row, enterprise=enterprise, index=index, where=where)
        rows.append(_ordered({"snapshot_day": day, "enterprise": enterprise, "granted_through": through,
                              "granted_by": by, "organization_id": _int(organization.get("id"))} | row,
                             ENTERPRISE_SEATS_SCHEMA))
    schema = ENTERPRISE_SEATS_SCHEMA
    frame = pl.DataFrame(rows, schema=schema) if rows else pl.DataFrame(schema=schema)
    key = ["user_id", "granted_through", "granted_by"]
    return frame.unique(subset=key, keep="last", maintain_order=True).sort(key)


def seat_totals_frame(*, totals: Mapping[str, int], day: date) -> pl.DataFrame:
    """Organization → `total_seats` as its listing said → `snapshots.seat_totals` rows."""
    return pl.DataFrame(
        {"snapshot_day": [day] * len(totals), "org_login": list(totals), "total_seats": list(totals.values())},
        schema=SEAT_TOTALS_SCHEMA,
    ).sort("org_login")


def enterprise_seat_totals_frame(*, totals: Mapping[str, int], day: date) -> pl.DataFrame:
    """Enterprise → `total_seats` (distinct holders) as its listing said → `snapshots.enterprise_seat_totals`."""
    return pl.DataFrame(
        {"snapshot_day": [day] * len(totals), "enterprise": list(totals), "total_seats": list(totals.values())},
        schema=ENTERPRISE_SEAT_TOTALS_SCHEMA,
    ).sort("enterprise")


def _seat(rec: Mapping[str, Any], *, index: int, where: str) -> dict[str, Any]:
    assignee = rec.get("assignee") if isinstance(rec, Mapping) else None
    user_id = assignee.get("id") if isinstance(assignee, Mapping) else None
    if not isinstance(user_id, int) or isinstance(user_id, bool):
        raise SeatRecordError(f"seat {index} of {where} has no assignee id: {rec!r:.200}")
    assert isinstance(assignee, Mapping)
    team = rec.get("assigning_team")
    team = team if isinstance(team, Mapping) else {}
    organization = rec.get("organization")
    organization = organization if isinstance(organization, Mapping) else {}
    row: dict[str, Any] = {
        "user_id": user_id,
        "login": assignee.get("login"),
        "assigning_team_id": team.get("id"),
        "assigning_team_slug": team.get("slug"),
        "assigning_team_type": team.get("type"),
        "organization_login": organization.get("login"),
        "plan_type": rec.get("plan_type"),
        "pending_cancellation_date": _day(rec.get("pending_cancellation_date"), index=index, where=where),
        "last_activity_editor": rec.get("last_activity_editor"),
    }
    for name in _TIMESTAMPS:
        row[name] = _instant(rec.get(name), field=name, index=index, where=where)
    return row


def _grant(row: Mapping[str, Any], *, enterprise: str, index: int, where: str) -> tuple[str, str]:
    if row["organization_login"] is not None:
        return "organization", str(row["organization_login"])
    if row["assigning_team_id"] is None:
        return "enterprise", enterprise
    if row["assigning_team_slug"] is None:
        raise SeatRecordError(
            f"seat {index} of {where} names neither a granting organization nor its team's slug: "
            "the seat cannot be told from the user's other seats"
        )
    return "enterprise_team", str(row["assigning_team_slug"])


def _ordered(row: Mapping[str, Any], schema: Mapping[str, pl.DataType]) -> dict[str, Any]:
    return {name: row[name] for name in schema}


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _instant(value: Any, *, field: str, index: int, where: str) -> datetime | None:
    if value is None:
        return None
    try:
        parsed = datetime.fromisoformat(value)
    except (TypeError, ValueError):
        raise SeatRecordError(f"seat {index} of {where}: {field} {value!r} is not a timestamp") from None
    # The service writes offsets ("-06:00" or "Z"); one without is taken as UTC, the service's zone.
    return parsed.replace(tzinfo=UTC) if parsed.tzinfo is None else parsed.astimezone(UTC)


def _day(value: Any, *, index: int, where: str) -> date | None:
    if value is None:
        return None
    try:
        return date.fromisoformat(value)
    except (TypeError, ValueError):
        raise SeatRecordError(f"seat {index} of {where}: pending_cancellation_date {value!r} is not a day") from None
