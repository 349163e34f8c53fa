"""Deterministic usage-report data: aggregate and user-level records of the emulated platform.

Every value follows from (seed, scope, day, user index), so any user range of any day can be
generated on its own and the same call always gives the same bytes.

Who is in which scope: the organization holds `users` users (global indices 0 .. users-1,
logins and ids follow the emulator's world: `{org}-admin`, `{org}-member`, `dev-00000`, ...).
The enterprise holds those same users (same numbers on the same day) plus a second
organization, `{org}-labs`, of `max(1, users // 2)` users. A user's activity does not depend on
the scope asking for it; only the id field (`organization_id` or `enterprise_id`) does.

How a user-day is built (all counts are unscaled integers first, then scaled by completeness):
- A per-day byte stream (20 bytes per global user, in blocks of users) decides whether the user was active, used
  chat, agent mode, the CLI and third-party agents, and how much.
- Activity is kept in cells (feature x language); every breakdown array and the top-level
  counts are sums of the scaled cells, so the arrays reconcile with the totals and
  aggregate records are exact sums of the user-level records.
- Third-party agents: several internal apps of one agent are merged into one entry; apps of
  unrecognized agents are used but never reported; an agent is renamed on `rename_day`.
- Seat holders who do not use the assistant: organization users with u % 20 == 19 are never
  active; users with u % 20 == 9 are active often until `lapse_day` (first_day + 15) and never
  after (see NEVER_ACTIVE_* and LAPSED_*).
- Teams (the user-teams report) are derived on the side by emulator/teams.py; they change no
  byte of the other reports.
- What the service's 2026 docs add (users active without IDE activity, the feature entries
  beside the IDE's) is in emulator/telemetry.py; the arrays' shapes in emulator/recordjson.py;
  the documented misattribution windows (a user-day as served) in emulator/misattribution.py.

This module answers for the whole; the parts it draws on: emulator/userlines.py (the user-level
lines), emulator/population.py (who, their profiles and ids), emulator/userday.py (a user's day),
emulator/activity.py (a day's masks over all users, last activity), emulator/aggregate.py (the
aggregate records), emulator/vocabulary.py (agents, features, IDEs, models).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from datetime import date

from emulator.activity import LAST_ACTIVITY_DAYS, Activity
from emulator.aggregate import Aggregates
from emulator.population import Population
from emulator.recordjson import COUNT_FIELDS
from emulator.teams import TeamMembership, TeamsModel
from emulator.userday import UserDays
from emulator.userlines import UserLines
from emulator.vocabulary import (
    AGENT_APPS,
    RENAMED_AGENT_ID,
    RENAMED_AGENT_NEW_NAME,
    RENAMED_AGENT_OLD_NAME,
    UNRECOGNIZED_APPS,
)

# What the emulator's callers and tests name from here, wherever it is defined.
__all__ = [
    "AGENT_APPS",
    "COUNT_FIELDS",
    "LAST_ACTIVITY_DAYS",
    "RENAMED_AGENT_ID",
    "RENAMED_AGENT_NEW_NAME",
    "RENAMED_AGENT_OLD_NAME",
    "UNRECOGNIZED_APPS",
    "ReportData",
    "completeness",
]


def completeness(*, day: date, today: date, fetch_no: int) -> float:
    """Share of a day's activity visible in a report fetched `fetch_no` times (from 1).

    Final (1.0) once more than three full days have passed; before that it starts lower the
    newer the day is and grows with every fetch, staying below 1.
    """
    age = (today - day).days
    if age > 3:
        return 1.0
    base = {3: 0.9, 2: 0.75, 1: 0.6}.get(age, 0.5)
    grown = 1.0 - (1.0 - base) / max(1, fetch_no)
    return min(grown, math.nextafter(1.0, 0.0))


class ReportData:
    """Report records for one emulated organization and its enterprise."""

    def __init__(
        self,
        *,
        seed: int,
        users: int,
        org: str,
        enterprise: str,
        first_day: date,
        dialect: str = "service",
        cloud_agent_from: date | None = None,
    ) -> None:
        self.people = people = Population(
            seed=seed,
            users=users,
            org=org,
            enterprise=enterprise,
            first_day=first_day,
            dialect=dialect,
            cloud_agent_from=cloud_agent_from,
        )
        self.days = UserDays(people)
        self.activity = Activity(people, self.days)
        self.aggregates = Aggregates(people, self.days, self.activity)
        self.seed, self.users, self.org, self.enterprise, self.first_day = seed, users, org, enterprise, first_day
        self.cloud_agent_from = cloud_agent_from
        self.second_org, self.second_org_users = people.second_org, people.second_org_users
        self.rename_day, self.lapse_day = people.rename_day, people.lapse_day
        self.organization_id, self.enterprise_id = people.organization_id, people.enterprise_id
        self.second_organization_id = people.second_organization_id
        self.line_writer = UserLines(people, self.days)
        self.teams = TeamsModel(
            seed=seed,
            org=org,
            enterprise=enterprise,
            second_org=people.second_org,
            users=users,
            total=people.total,
            first_day=first_day,
            rename_day=people.rename_day,
            identity=people.login_and_id,
        )
        self.team_move_day = self.teams.move_day
        self.pilot_listed_from = self.teams.pilot_listed_from("organization")
        # A user's profile and a day's masks, for tests that pick users by them.
        self._profile = people.profile
        self._day_flags = self.activity.day_flags

    # ----- public surface -------------------------------------------------------------------

    def user_count(self, *, scope: str) -> int:
        return self.people.scope_size(scope)

    def agent_name(self, *, agent_id: str, day: date) -> str:
        """The label an agent carries in reports of `day` (the renamed agent changes on rename_day)."""
        return self.people.agent_name(agent_id, day)

    def has_agent_activity(self, *, day: date) -> bool:
        """False on the days (about NO_AGENT_DAY_PERCENT of them) with no agent activity anywhere."""
        return self.people.has_agent_activity(day)

    def aggregate_record(self, *, scope: str, day: date, completeness: float) -> dict:
        return self.aggregates.record(scope, day, float(completeness))

    def aggregate_28_day(self, *, scope: str, end_day: date, completeness_for: Callable[[date], float]) -> dict:
        return self.aggregates.twenty_eight_day(scope=scope, end_day=end_day, completeness_for=completeness_for)

    def user_lines(
        self, *, scope: str, days: Sequence[date], completeness_for: Callable[[date], float], start: int, stop: int
    ) -> Iterator[bytes]:
        return self.line_writer.lines(scope=scope, days=days, completeness_for=completeness_for, start=start, stop=stop)

    def server_side_only(self, *, scope: str, day: date) -> set[int]:
        """The ids of the users the day's aggregate counts active by the service's own telemetry
        only: their user-level lines show no activity (emulator/telemetry.py)."""
        return {
            self.people.profile(u).user_id
            for u in self.people.scope_users(scope)
            if self.days.user_day(u, day, 1.0).server_side
        }

    def misattributed(self, *, scope: str, day: date) -> dict[int, str]:
        """User id -> what the service served in its place that day (emulator/misattribution.py)."""
        days = (
            (self.people.profile(u).user_id, self.days.user_day(u, day, 1.0).shifted)
            for u in self.people.scope_users(scope)
        )
        return {user_id: shifted for user_id, shifted in days if shifted}

    # ----- teams (docs/extensions.md; emulator/teams.py has the rules) ---------------------------

    def team_members(self, *, scope: str, day: date) -> list[TeamMembership]:
        """Every (user, team) of the day; `listed` is False for a team under 5 members that day."""
        self.people.scope_size(scope)
        return list(self.teams.members(scope, day))

    def user_teams_lines(self, *, scope: str, day: date) -> Iterator[bytes]:
        """The user-teams report of the day: one NDJSON line per (user, listed team)."""
        self.people.scope_size(scope)
        return self.teams.lines(scope=scope, day=day, ids=self.people.ids(scope))

    # ----- seats: last activity of the organization's users -------------------------------------

    def identity(self, u: int) -> tuple[str, int]:
        """(login, user id) of global user u, as in the reports."""
        return self.people.login_and_id(u)

    def last_active_days(self, *, today: date) -> tuple[date | None, ...]:
        """Per enterprise user (the organization's come first), the last day before `today` on
        which the user was active (final data: the record has activity once the day is final),
        None when the user was not active in the LAST_ACTIVITY_DAYS days before `today`. Cached
        per `today`."""
        return self.activity.last_active_days(today)

    def editor_on(self, u: int, day: date) -> str:
        """`{ide}/{ide_version}/{plugin}/{plugin_version}` of user u's activity on `day`."""
        return self.activity.editor_on(u, day)

    def activity_time(self, u: int) -> str:
        """The time of day (`THH:MM:SSZ`) of user u's activity."""
        return self.people.profile(u).sampled_time[:9] + "Z"
