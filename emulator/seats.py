"""Seats of an emulated organization (`GET /orgs/{org}/{product}/billing/seats`) and of its
enterprise (`GET /enterprises/{enterprise}/{product}/billing/seats`): which seats each lists, in
which order; emulator/seat.py makes each seat's fields.

The organization lists one seat per organization user, in user order.

The enterprise lists one seat per granting organization or enterprise team of each enterprise
user, by user then grant: the organization's seat as its own listing has it (u < users); a seat
from `{org}-labs`, assigned directly, for its users (u >= users) and for organization users
with u % 6 == 5 (two organizations: two seats); a seat from the user's engineering enterprise
team (`organization` null, `assigning_team.type` "enterprise") when u % 8 == 6, which for a
`{org}-labs` user replaces that organization's seat. Activity fields are the user's, on every
seat of the user. `total_seats` counts each user once, as the public service does.

With `unassigned_seats` (EmulatorConfig) both listings end with that many seats whose `assignee`
is null, as the service documents the seat of a deleted or pending account; each counts in
`total_seats`. With `unlandable_seats` they are followed by that many seats, each of its own
holder, whose id is over 64 bits (no table can hold it), counted in `total_seats` too.
"""

from __future__ import annotations

from datetime import date
from typing import Any

from emulator.reportdata import ReportData
from emulator.seat import Grant, seat, unassigned_seat

DEFAULT_PER_PAGE = 50
BOTH_ORGS_EVERY, BOTH_ORGS_AT = 6, 5  # organization users with a second seat from {org}-labs
ENTERPRISE_TEAM_EVERY, ENTERPRISE_TEAM_AT = 8, 6  # enterprise users with a seat from their enterprise team


def seat_count(data: ReportData) -> int:
    return data.users


def seat_records(
    data: ReportData, *, today: date, base_url: str, start: int, stop: int, unassigned: int = 0, unlandable: int = 0
) -> list[dict[str, Any]]:
    """The organization's seats of users start .. stop-1 as the public service lists them on `today`;
    `unassigned` seats without an assignee follow the users' (`unassigned_seat`), then `unlandable` ones."""
    last_active = data.last_active_days(today=today)
    return [
        seat(data, u, "organization", today=today, base_url=base_url, last_day=last_active[u])
        for u in range(max(0, start), min(stop, data.users))
    ] + _unassigned(
        data,
        data.users,
        start=start,
        stop=stop,
        count=unassigned,
        unlandable=unlandable,
        today=today,
        base_url=base_url,
    )


def _unassigned(
    data: ReportData, first: int, *, start: int, stop: int, count: int, unlandable: int, today: date, base_url: str
) -> list[dict[str, Any]]:
    """The unassigned, then unlandable, seats among entries start .. stop-1 of a listing whose
    assigned ones end at `first`."""
    return [
        unassigned_seat(data, n, today=today, base_url=base_url)
        if n < count
        else unassigned_seat(data, n, today=today, base_url=base_url)
        | {
            "assignee": {
                # A holder the service cannot have: an id no 64-bit column takes.
                "id": 2**64 + n,
                "login": f"unlandable-{n}",
                "type": "User",
            }
        }
        for n in range(max(0, start - first), max(0, min(stop - first, count + unlandable)))
    ]


def enterprise_grants(data: ReportData) -> list[tuple[int, Grant]]:
    """Every (user, grant) of the enterprise listing, in listing order."""
    out: list[tuple[int, Grant]] = []
    for u in range(data.user_count(scope="enterprise")):
        by_team = u % ENTERPRISE_TEAM_EVERY == ENTERPRISE_TEAM_AT
        if u < data.users:
            out.append((u, "organization"))
        if (u >= data.users and not by_team) or (u < data.users and u % BOTH_ORGS_EVERY == BOTH_ORGS_AT):
            out.append((u, "labs"))
        if by_team:
            out.append((u, "enterprise-team"))
    return out


def enterprise_seat_count(data: ReportData) -> int:
    """`total_seats` of the enterprise: each user once, however many seats grant them access."""
    return data.user_count(scope="enterprise")


def enterprise_seat_records(
    data: ReportData, *, today: date, base_url: str, start: int, stop: int, unassigned: int = 0, unlandable: int = 0
) -> list[dict[str, Any]]:
    """The enterprise listing's entries start .. stop-1 (one per user and grant) on `today`, then
    `unassigned` seats without an assignee (the organization's)."""
    last_active = data.last_active_days(today=today)
    grants = enterprise_grants(data)
    return [
        seat(data, u, grant, today=today, base_url=base_url, last_day=last_active[u])
        for u, grant in grants[max(0, start) : stop]
    ] + _unassigned(
        data,
        len(grants),
        start=start,
        stop=stop,
        count=unassigned,
        unlandable=unlandable,
        today=today,
        base_url=base_url,
    )
