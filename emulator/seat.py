"""One seat of the seat listings (emulator/seats.py): its fields, from (seed, granting organization or
team, user index u, the emulator's today):

- `assignee`: the user object of `/orgs/{org}/members` (same id and login as the reports), with
  the person's `name` (null when u % 7 == 3: none given) and public `email` (null when
  u % 4 == 2: kept private), as the public service documents them on a seat;
- `organization`: the organization granting the seat (its id is the reports' organization_id);
- `assigning_team`: the user's squad as of today (emulator/teams.py, `type` "organization")
  when u % 3 != 0, else null (assigned directly); a squad of odd index sits under the
  `platform-guild` team (`parent`, the team object of the public REST API), the others under none;
- `last_activity_at`: the user's last active day before today in the report data, at the
  user's activity time; null when not active in the 90 days before today (never-active users,
  u % 20 == 19, always; lapsed users, u % 20 == 9, once first_day + 15 is 90 days back);
  `last_activity_editor` is `{ide}/{ide_version}/{plugin}/{plugin_version}` of that day;
- `pending_cancellation_date`: today + 3 + u % 5 days when u % 25 == 11, else null;
- `plan_type`: `enterprise` when u % 5 == 4, `unknown` when u % 10 == 3 (the public service
  documents it so), else `business`;
- `created_at` 30 to 329 days before first_day; `updated_at` the later of created_at, the
  team move (for a moved user assigned by team) and, for a pending cancellation, yesterday;
- `last_authenticated_at`: the last active day at 06:MM; without activity, 91 .. 290 days ago
  for odd u, else null.

A seat without an assignee (`unassigned_seat`) is the service's seat of a deleted or pending account.
"""

from __future__ import annotations

import hashlib
from datetime import date, timedelta
from typing import Any, Literal

from emulator.reportdata import ReportData
from emulator.teams import GUILD_SLUG, MOVER_AT, MOVER_EVERY
from emulator.world_records import Account

TEAM_ASSIGNED_EVERY = 3  # u % 3 != 0: assigned through the user's squad
PENDING_EVERY, PENDING_AT = 25, 11
ENTERPRISE_PLAN_EVERY, ENTERPRISE_PLAN_AT = 5, 4
UNKNOWN_PLAN_EVERY, UNKNOWN_PLAN_AT = 10, 3
NO_NAME_EVERY, NO_NAME_AT = 7, 3  # a seat holder who gave no name
PRIVATE_EMAIL_EVERY, PRIVATE_EMAIL_AT = 4, 2  # a seat holder whose email is private
# Names of seat holders: FIRST x LAST, one pair per user index (then a number), so no two
# holders of an emulated world share a name or an address.
_FIRST = (
    "Ada",
    "Bruno",
    "Chioma",
    "Dmitri",
    "Elif",
    "Farid",
    "Greta",
    "Hiro",
    "Ines",
    "Jonas",
    "Kavya",
    "Lars",
    "Mei",
    "Nadia",
    "Omar",
    "Priya",
    "Quentin",
    "Rosa",
    "Sven",
    "Tamar",
)
_LAST = (
    "Abara",
    "Berg",
    "Castro",
    "Dubois",
    "Eriksen",
    "Fischer",
    "Gupta",
    "Haddad",
    "Ito",
    "Jansen",
    "Kowalski",
    "Lindqvist",
    "Moreau",
    "Nakamura",
    "Okafor",
    "Petrov",
    "Quispe",
    "Rossi",
    "Sato",
    "Tanaka",
)

Grant = Literal["organization", "labs", "enterprise-team"]


def _hash(*parts: object) -> int:
    return int.from_bytes(hashlib.blake2b(repr(parts).encode(), digest_size=8).digest(), "little")


def _at(day: date, clock: str) -> str:
    return f"{day.isoformat()}T{clock}Z"


def unassigned_seat(data: ReportData, n: int, *, today: date, base_url: str) -> dict[str, Any]:
    """The nth seat whose `assignee` is null, as the public service documents for the seat of a
    deleted or pending account: granted by the organization, never active."""
    h = _hash("unassigned", data.seed, data.org, n)
    created = data.first_day - timedelta(days=30 + h % 300)
    return {
        "created_at": _at(created, "10:00:00"),
        "updated_at": _at(today - timedelta(days=1 + h % 20), "11:00:00"),
        "pending_cancellation_date": None,
        "last_activity_at": None,
        "last_activity_editor": None,
        "last_authenticated_at": None,
        "plan_type": "business",
        "assignee": None,
        "organization": _organization(data.org, data.organization_id, base_url),
        "assigning_team": None,
    }


def holder(u: int) -> tuple[str, str]:
    """(name, email) of user u as a seat shows them when given: one pair per user index."""
    first, last = _FIRST[u % len(_FIRST)], _LAST[(u // len(_FIRST) + u) % len(_LAST)]
    again = u // (len(_FIRST) * len(_LAST))
    number = f" {again + 1}" if again else ""
    return f"{first} {last}{number}", f"{first}.{last}{again or ''}@people.example".lower()


def _assignee(data: ReportData, u: int, base_url: str) -> dict[str, Any]:
    login, user_id = data.identity(u)
    name, email = holder(u)
    return Account(id=user_id, login=login).record(base_url) | {
        "name": None if u % NO_NAME_EVERY == NO_NAME_AT else name,
        "email": None if u % PRIVATE_EMAIL_EVERY == PRIVATE_EMAIL_AT else email,
    }


def _plan(u: int) -> str:
    if u % ENTERPRISE_PLAN_EVERY == ENTERPRISE_PLAN_AT:
        return "enterprise"
    return "unknown" if u % UNKNOWN_PLAN_EVERY == UNKNOWN_PLAN_AT else "business"


def _parent(data: ReportData, team: dict[str, Any], *, today: date, base_url: str) -> dict[str, Any] | None:
    """The team a squad sits under: `platform-guild` for a squad of odd id, none for the others."""
    if team["id"] % 2 == 0:
        return None
    guild = data.teams.team("organization", GUILD_SLUG).record(
        day=today, rename_day=data.rename_day, base_url=base_url, org=data.org
    )
    return {key: value for key, value in guild.items() if key not in ("parent", "type")}


def _organization(login: str, org_id: str, base_url: str) -> dict[str, Any]:
    return {
        "login": login,
        "id": int(org_id),
        "node_id": f"O_{org_id}",
        "url": f"{base_url}/orgs/{login}",
        "repos_url": f"{base_url}/orgs/{login}/repos",
        "members_url": f"{base_url}/orgs/{login}/members{{/member}}",
        "description": None,
    }


def seat(
    data: ReportData, u: int, grant: Grant, *, today: date, base_url: str, last_day: date | None
) -> dict[str, Any]:
    organization: dict[str, Any] | None = None
    team: dict[str, Any] | None = None
    moved = u % MOVER_EVERY == MOVER_AT and today >= data.team_move_day
    if grant == "organization":
        grantor = data.org
        organization = _organization(data.org, data.organization_id, base_url)
        if u % TEAM_ASSIGNED_EVERY != 0:
            team = data.teams.squad_of(u, today).record(
                day=today, rename_day=data.rename_day, base_url=base_url, org=data.org
            )
            team["parent"] = _parent(data, team, today=today, base_url=base_url)
    elif grant == "labs":
        grantor = data.second_org
        organization = _organization(data.second_org, data.second_organization_id, base_url)
    else:
        grantor = data.enterprise
        team = data.teams.enterprise_team_of(u, today).enterprise_record(
            day=today, rename_day=data.rename_day, base_url=base_url, enterprise=data.enterprise
        )
    user_h = _hash("seat", data.seed, data.org, u)  # the user's sign-ins: the same on each of their seats
    h = _hash("seat", data.seed, grantor, u)
    created_day = data.first_day - timedelta(days=30 + h % 300)
    created = (created_day, f"{9 + h % 8:02d}:{h // 8 % 60:02d}:{h // 480 % 60:02d}")
    updated = created
    if team is not None and moved:
        updated = max(updated, (data.team_move_day, "08:00:00"))
    pending = None
    if u % PENDING_EVERY == PENDING_AT:
        pending = (today + timedelta(days=3 + u % 5)).isoformat()
        updated = max(updated, (today - timedelta(days=1), "12:00:00"))
    signed_in = f"06:{user_h // 7 % 60:02d}:{user_h // 11 % 60:02d}"
    if last_day is not None:
        last_activity = data.activity_time(u)
        last_authenticated = _at(last_day, signed_in)
    else:
        last_activity = None
        last_authenticated = _at(today - timedelta(days=91 + user_h % 200), signed_in) if u % 2 else None
    return {
        "created_at": _at(*created),
        "updated_at": _at(*updated),
        "pending_cancellation_date": pending,
        "last_activity_at": f"{last_day.isoformat()}{last_activity}" if last_day and last_activity else None,
        "last_activity_editor": data.editor_on(u, last_day) if last_day else None,
        "last_authenticated_at": last_authenticated,
        "plan_type": _plan(u),
        "assignee": _assignee(data, u, base_url),
        "organization": organization,
        "assigning_team": team,
    }
