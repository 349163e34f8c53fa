"""Seat listings (the seats extension of docs/extensions.md) → typed Polars frames.

Pure functions, no I/O. An organization's listing: one row per (snapshot day, organization,
seat holder). An enterprise's listing: one row per (snapshot day, enterprise, holder, grant),
since it lists a seat for each organization or enterprise team granting a user access. Each
listing's `total_seats` goes to a table of its own, so a scope with no seat still has its
total. A seat whose `assignee` is null (the service documents it so for a deleted or pending
account) is an unassigned seat: a row of `snapshots.unassigned_seats`, counted with the others.
A seat that cannot land (an assignee without an id, a timestamp that is not one, in an
enterprise no grant to name) is left out alone with its reason, naming its place in the listing
and never its holder, and counted beside the listing's total; the listing's other seats land.
Every declared field (seat_fields.py) lands in its column, typed by seat_values.py; what a seat carries beyond them, in
its row's `extra`, and told as drift (SeatRows.drift).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import date
from typing import Any

import polars as pl

from pipelines.transform.columns import polars_types
from pipelines.transform.seat_values import SeatRecordError, seat_columns

__all__ = [
    "ENTERPRISE_SEATS_SCHEMA",
    "ENTERPRISE_SEAT_TOTALS_SCHEMA",
    "SEATS_SCHEMA",
    "SEAT_TOTALS_SCHEMA",
    "UNASSIGNED_SEATS_SCHEMA",
    "SeatRecordError",
    "SeatRows",
    "enterprise_seat_totals_frame",
    "enterprise_seats_frame",
    "seat_totals_frame",
    "seats_frame",
]

# Each table's frame: its declaration's columns (pipelines/transform/columns.py): the key, the
# declared seat fields (seat_fields.py) and `extra`, what a seat carried beyond them as it came.
SEATS_SCHEMA = polars_types("snapshots.seats")
ENTERPRISE_SEATS_SCHEMA = polars_types("snapshots.enterprise_seats")
UNASSIGNED_SEATS_SCHEMA = polars_types("snapshots.unassigned_seats")
# The totals but the erased seats and holders, which erasure counts (0 until then).
SEAT_TOTALS_SCHEMA = polars_types("snapshots.seat_totals", leave_out=frozenset({"erased_seats"}))
ENTERPRISE_SEAT_TOTALS_SCHEMA = polars_types(
    "snapshots.enterprise_seat_totals", leave_out=frozenset({"erased_holders"})
)


@dataclass(frozen=True)
class SeatRows:
    """One listing's seats: those with a holder, those without, and why any other was left out."""

    seats: pl.DataFrame  # SEATS_SCHEMA, or ENTERPRISE_SEATS_SCHEMA for an enterprise's listing
    unassigned: pl.DataFrame  # UNASSIGNED_SEATS_SCHEMA
    refused: list[str]  # one reason per seat left out: its place in the listing, never its holder
    # The seats (an enterprise: holders) left out that no landed row stands for: a refused seat
    # whose integer assignee id landed on another row is not missing; each other one is, once per
    # id, and once each where no id can be read (so, for an enterprise, at most this many holders).
    left_out: int
    # What the listed seats carried beyond the declarations: (path, UNDECLARED or MISTYPED, value),
    # once per seat and path, the seats left out too.
    drift: list[tuple[str, str, object]]


def seats_frame(*, records: Iterable[Mapping[str, Any]], day: date, org: str) -> SeatRows:
    """One organization's seat listing → `snapshots.seats` rows, one per assignee, and its
    unassigned seats.

    Timestamps are instants in UTC whatever offset the service wrote them with; a seat listed
    twice (it moved between pages while they were read) is kept once, as last seen.
    """
    where = f"organization {org!r}"
    rows, unassigned, refused, missing = [], [], [], []
    drift: list[tuple[str, str, object]] = []
    for index, rec in enumerate(records):
        try:
            row = seat_columns(rec, index=index, where=where, drift=drift)
        except SeatRecordError as exc:
            refused.append(str(exc))
            missing.append(_holder(rec, index))
            continue
        if row["user_id"] is None:
            unassigned.append(row)
        else:
            rows.append(_ordered({"snapshot_day": day, "org_login": org} | row, SEATS_SCHEMA))
    frame = pl.DataFrame(rows, schema=SEATS_SCHEMA) if rows else pl.DataFrame(schema=SEATS_SCHEMA)
    return SeatRows(
        seats=frame.unique(subset=["user_id"], keep="last", maintain_order=True).sort("user_id"),
        unassigned=_unassigned(unassigned, day=day, scope="organization", name=org),
        refused=refused,
        left_out=_left_out(missing, landed=frame["user_id"]),
        drift=drift,
    )


def enterprise_seats_frame(*, records: Iterable[Mapping[str, Any]], day: date, enterprise: str) -> SeatRows:
    """One enterprise's seat listing → `snapshots.enterprise_seats` rows, one per holder and
    grant, and its unassigned seats.

    The grant is the granting organization; without one, the enterprise team the seat came
    through; without either, the enterprise itself. A seat listed twice is kept once, as last seen.
    """
    where = f"enterprise {enterprise!r}"
    rows, unassigned, refused, missing = [], [], [], []
    drift: list[tuple[str, str, object]] = []
    for index, rec in enumerate(records):
        try:
            row = seat_columns(rec, index=index, where=where, drift=drift)
            if row["user_id"] is None:
                unassigned.append(row)
                continue
            through, by = _grant(row, enterprise=enterprise, index=index, where=where)
        except SeatRecordError as exc:
            refused.append(str(exc))
            missing.append(_holder(rec, index))
            continue
        rows.append(
            _ordered(
                {"snapshot_day": day, "enterprise": enterprise, "granted_through": through, "granted_by": by} | row,
                ENTERPRISE_SEATS_SCHEMA,
            )
        )
    schema = ENTERPRISE_SEATS_SCHEMA
    frame = pl.DataFrame(rows, schema=schema) if rows else pl.DataFrame(schema=schema)
    key = ["user_id", "granted_through", "granted_by"]
    return SeatRows(
        seats=frame.unique(subset=key, keep="last", maintain_order=True).sort(key),
        unassigned=_unassigned(unassigned, day=day, scope="enterprise", name=enterprise),
        refused=refused,
        left_out=_left_out(missing, landed=frame["user_id"]),
        drift=drift,
    )


def _unassigned(rows: list[dict[str, Any]], *, day: date, scope: str, name: str) -> pl.DataFrame:
    """The listing's seats without an assignee, numbered in listing order (they have no other key)."""
    return pl.DataFrame(
        [
            _ordered(
                {"snapshot_day": day, "scope": scope, "scope_name": name, "seat_number": number} | row,
                UNASSIGNED_SEATS_SCHEMA,
            )
            for number, row in enumerate(rows, start=1)
        ],
        schema=UNASSIGNED_SEATS_SCHEMA,
    )


def seat_totals_frame(
    *, totals: Mapping[str, int], day: date, left_out: Mapping[str, int] | None = None
) -> pl.DataFrame:
    """Organization → `total_seats` as its listing said, and its seats left out (`left_out`,
    none if not given) → `snapshots.seat_totals` rows."""
    left_out = left_out or {}
    return pl.DataFrame(
        {
            "snapshot_day": [day] * len(totals),
            "org_login": list(totals),
            "total_seats": list(totals.values()),
            "left_out_seats": [left_out.get(name, 0) for name in totals],
        },
        schema=SEAT_TOTALS_SCHEMA,
    ).sort("org_login")


def enterprise_seat_totals_frame(
    *, totals: Mapping[str, int], day: date, left_out: Mapping[str, int] | None = None
) -> pl.DataFrame:
    """Enterprise → `total_seats` (distinct holders) as its listing said, and its holders left out
    (`left_out`, none if not given) → `snapshots.enterprise_seat_totals`."""
    left_out = left_out or {}
    return pl.DataFrame(
        {
            "snapshot_day": [day] * len(totals),
            "enterprise": list(totals),
            "total_seats": list(totals.values()),
            "left_out_holders": [left_out.get(name, 0) for name in totals],
        },
        schema=ENTERPRISE_SEAT_TOTALS_SCHEMA,
    ).sort("enterprise")


def _holder(rec: Any, index: int) -> tuple[str, int]:
    """Who a seat left out was held by, as far as it says: its integer assignee id (of any size),
    else its place in the listing (a holder that cannot be told from any other)."""
    assignee = rec.get("assignee") if isinstance(rec, Mapping) else None
    user_id = assignee.get("id") if isinstance(assignee, Mapping) else None
    if isinstance(user_id, int) and not isinstance(user_id, bool):
        return "id", user_id
    return "place", index


def _left_out(missing: Iterable[tuple[str, int]], *, landed: pl.Series) -> int:
    """The holders of `missing` seats that no landed row stands for, each once (SeatRows.left_out)."""
    ids = set(landed.to_list())
    return len({holder for holder in missing if not (holder[0] == "id" and holder[1] in ids)})


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
