"""Seats of an emulated organization (`GET /orgs/{org}/{product}/billing/seats`).

One seat per organization user of the report data, in user order. Everything follows from
(seed, organization, user index u, the emulator's today):

- `assignee`: the user object of `/orgs/{org}/members` (same id and login as the reports);
- `assigning_team`: the user's squad as of today (emulator/teams.py) when u % 3 != 0, else
  null (assigned directly);
- `last_activity_at`: the user's last active day before today in the report data, at the
  user's activity time; null when not active in the 90 days before today (never-active users,
  u % 20 == 19, always; lapsed users, u % 20 == 9, once first_day + 15 is 90 days back);
  `last_activity_editor` is `{ide}/{ide_version}/{plugin}/{plugin_version}` of that day;
- `pending_cancellation_date`: today + 3 + u % 5 days when u % 25 == 11, else null;
- `plan_type`: `enterprise` when u % 5 == 4, else `business`;
- `created_at` 30 to 329 days before first_day; `updated_at` the later of created_at, the
  team move (for a moved user assigned by team) and, for a pending cancellation, yesterday;
- `last_authenticated_at`: the last active day at 06:MM; without activity, 91 .. 290 days ago
  for odd u, else null.
"""

from __future__ import annotations

import hashlib
from datetime import date, timedelta
from typing import Any

from emulator.reportdata import ReportData
from emulator.teams import MOVER_AT, MOVER_EVERY
from emulator.world import Account

DEFAULT_PER_PAGE = 50
TEAM_ASSIGNED_EVERY = 3  # u % 3 != 0: assigned through the user's squad
PENDING_EVERY, PENDING_AT = 25, 11
ENTERPRISE_PLAN_EVERY, ENTERPRISE_PLAN_AT = 5, 4


def _hash(*parts: object) -> int:
    return int.from_bytes(hashlib.blake2b(repr(parts).encode(), digest_size=8).digest(), "little")


def _at(day: date, clock: str) -> str:
    return f"{day.isoformat()}T{clock}Z"


def seat_count(data: ReportData) -> int:
    return data.users


def seat_records(data: ReportData, *, today: date, base_url: str, start: int, stop: int) -> list[dict[str, Any]]:
    """The seats of users start .. stop-1 as the public service lists them on `today`."""
    last_active = data.last_active_days(today=today)
    out = []
    for u in range(max(0, start), min(stop, data.users)):
        login, user_id = data.identity(u)
        h = _hash("seat", data.seed, data.org, u)
        created_day = data.first_day - timedelta(days=30 + h % 300)
        created = (created_day, f"{9 + h % 8:02d}:{h // 8 % 60:02d}:{h // 480 % 60:02d}")
        team = None
        updated = created
        if u % TEAM_ASSIGNED_EVERY != 0:
            squad = data.teams.squad_of(u, today)
            team = squad.record(day=today, rename_day=data.rename_day, base_url=base_url, org=data.org)
            if u % MOVER_EVERY == MOVER_AT and today >= data.team_move_day:
                updated = max(updated, (data.team_move_day, "08:00:00"))
        pending = None
        if u % PENDING_EVERY == PENDING_AT:
            pending = (today + timedelta(days=3 + u % 5)).isoformat()
            updated = max(updated, (today - timedelta(days=1), "12:00:00"))
        last_day = last_active[u]
        signed_in = f"06:{h // 7 % 60:02d}:{h // 11 % 60:02d}"
        if last_day is not None:
            last_activity = data.activity_time(u)
            last_authenticated = _at(last_day, signed_in)
        else:
            last_activity = None
            last_authenticated = _at(today - timedelta(days=91 + h % 200), signed_in) if u % 2 else None
        out.append({
            "created_at": _at(*created),
            "updated_at": _at(*updated),
            "pending_cancellation_date": pending,
            "last_activity_at": f"{last_day.isoformat()}{last_activity}" if last_day and last_activity else None,
            "last_activity_editor": data.editor_on(u, last_day) if last_day else None,
            "last_authenticated_at": last_authenticated,
            "plan_type": "enterprise" if u % ENTERPRISE_PLAN_EVERY == ENTERPRISE_PLAN_AT else "business",
            "assignee": Account(id=user_id, login=login).record(base_url),
            "assigning_team": team,
        })
    return out
