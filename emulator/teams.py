"""Teams of the emulated organization and enterprise, day by day (the user-teams report).

Everything follows from (seed, organization or enterprise, day); report bytes of the user-level
reports do not depend on it. Users are the report data's global indices u (0 .. users-1 the
organization, users .. total-1 the enterprise's second organization `{org}-labs`).

Organization teams (ids `org_base + index`, index 0 pilot, 1 guild, 2.. squads):
- squads: `max(3, users // 12)` squads `squad-atlas`, `squad-beacon`, ...; user u's home squad
  is `u % squads`;
- movers: users with `u % 10 == 7` move to the next squad (`(home + 1) % squads`) on
  `first_day + 20` (`move_day`);
- `platform-guild`: users with `u % 4 == 1`, on top of their squad (two teams);
- `pilot`: grows from 2 members on first_day by one every 5 days up to 8 (members are 8 users
  spread over the organization), so it is left out of the report (fewer than 5 members) until
  `first_day + 15` and listed from then on;
- the first squad, `squad-atlas`, is renamed `atlas-platform` on rename_day; its id stays.

Enterprise teams (ids `enterprise_base + index`, index 0 pilot, 1 and 2 business teams, 3..
engineering teams), over every enterprise user:
- engineering teams: `max(3, total // 25)` teams `eng-atlas`, ...; home `u % teams`, the same
  movers move to the next one on the same day; `eng-atlas` is renamed `atlas-engineering`;
- business teams, one per organization: `business-{org}` (users 0 .. users-1) and
  `business-{org}-labs` (the rest), so every enterprise user is on two teams;
- `enterprise-pilot`: grows as the organization's pilot does, over 8 enterprise users.

Team ids: organization teams lie in 10,000,000 .. 909,999,999, enterprise teams in
1,000,000,000 .. 1,899,999,999 (blocks of 10,000 ids chosen by a hash of seed and name), so an
organization team never has an enterprise team's id.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import date, timedelta
from functools import lru_cache

from emulator.team import Team, word_slug

MIN_LISTED_MEMBERS = 5  # a team with fewer members that day is left out of the report
MOVE_OFFSET_DAYS = 20
MOVER_EVERY, MOVER_AT = 10, 7
GUILD_EVERY, GUILD_AT = 4, 1
GUILD_SLUG = "platform-guild"
PILOT_SLUG = "pilot"
ENTERPRISE_PILOT_SLUG = "enterprise-pilot"
PILOT_START, PILOT_STEP_DAYS, PILOT_MAX = 2, 5, 8
USERS_PER_SQUAD, MIN_SQUADS = 12, 3
USERS_PER_ENTERPRISE_TEAM, MIN_ENTERPRISE_TEAMS = 25, 3
RENAMED_SQUAD_OLD_SLUG, RENAMED_SQUAD_NEW_SLUG = "squad-atlas", "atlas-platform"
RENAMED_ENTERPRISE_OLD_SLUG, RENAMED_ENTERPRISE_NEW_SLUG = "eng-atlas", "atlas-engineering"
ORG_TEAM_IDS = (10_000_000, 910_000_000)
ENTERPRISE_TEAM_IDS = (1_000_000_000, 1_900_000_000)
_BLOCK_IDS = 10_000  # ids per scope: at most 9,997 squads (about 120,000 users)


def _hash(*parts: object) -> int:
    return int.from_bytes(hashlib.blake2b(repr(parts).encode(), digest_size=8).digest(), "little")


@dataclass(frozen=True, slots=True)
class TeamMembership:
    """One (user, team) of one day; `listed` is False for a team left out of that day's report."""

    user_id: int
    user_login: str
    team_id: int
    slug: str
    listed: bool


class _ScopeTeams:
    """The teams of one scope and who is on which on a day."""

    def __init__(
        self,
        *,
        teams: list[Team],
        users: int,
        first_day: date,
        move_day: date,
        pilot: list[int],
        teams_of: Callable[[int, bool], tuple[int, ...]],
    ) -> None:
        self.teams = teams
        self.users = users
        self.first_day = first_day
        self.move_day = move_day
        self.pilot = pilot  # candidate members in the order they join
        self._teams_of = teams_of  # (u, moved) -> team indices besides the pilot

    def pilot_size(self, day: date) -> int:
        grown = PILOT_START + max(0, (day - self.first_day).days) // PILOT_STEP_DAYS
        return min(PILOT_MAX, grown, len(self.pilot))

    def pilot_listed_from(self) -> date | None:
        if len(self.pilot) < MIN_LISTED_MEMBERS:
            return None
        return self.first_day + timedelta(days=(MIN_LISTED_MEMBERS - PILOT_START) * PILOT_STEP_DAYS)

    def memberships(self, day: date) -> list[tuple[int, int]]:
        """(u, team index) of the day, by user then team index (the pilot is index 0)."""
        pilot = set(self.pilot[: self.pilot_size(day)])
        moved = day >= self.move_day
        out: list[tuple[int, int]] = []
        for u in range(self.users):
            if u in pilot:
                out.append((u, 0))
            out.extend((u, t) for t in self._teams_of(u, moved))
        return out


class TeamsModel:
    """Organization and enterprise teams of one report data set (see the module docstring)."""

    def __init__(
        self,
        *,
        seed: int,
        org: str,
        enterprise: str,
        second_org: str,
        users: int,
        total: int,
        first_day: date,
        rename_day: date,
        identity: Callable[[int], tuple[str, int]],
    ) -> None:
        self.first_day = first_day
        self.rename_day = rename_day
        self.move_day = first_day + timedelta(days=MOVE_OFFSET_DAYS)
        self._identity = identity
        squads = max(MIN_SQUADS, users // USERS_PER_SQUAD)
        eng = max(MIN_ENTERPRISE_TEAMS, total // USERS_PER_ENTERPRISE_TEAM)
        span = (ORG_TEAM_IDS[1] - ORG_TEAM_IDS[0]) // _BLOCK_IDS
        org_base = ORG_TEAM_IDS[0] + _hash("org-teams", seed, org) % span * _BLOCK_IDS
        ent_base = ENTERPRISE_TEAM_IDS[0] + _hash("enterprise-teams", seed, enterprise) % span * _BLOCK_IDS
        org_teams = [Team(org_base, PILOT_SLUG, "pilot"), Team(org_base + 1, GUILD_SLUG, "guild")]
        for i in range(squads):
            slug = word_slug("squad", i)
            org_teams.append(
                Team(
                    org_base + 2 + i, slug, "squad", RENAMED_SQUAD_NEW_SLUG if slug == RENAMED_SQUAD_OLD_SLUG else None
                )
            )
        ent_teams = [
            Team(ent_base, ENTERPRISE_PILOT_SLUG, "pilot"),
            Team(ent_base + 1, f"business-{org}".lower(), "business"),
            Team(ent_base + 2, f"business-{second_org}".lower(), "business"),
        ]
        for i in range(eng):
            slug = word_slug("eng", i)
            ent_teams.append(
                Team(
                    ent_base + 3 + i,
                    slug,
                    "engineering",
                    RENAMED_ENTERPRISE_NEW_SLUG if slug == RENAMED_ENTERPRISE_OLD_SLUG else None,
                )
            )

        def org_teams_of(u: int, moved: bool) -> tuple[int, ...]:
            squad = (u % squads + (1 if moved and u % MOVER_EVERY == MOVER_AT else 0)) % squads
            guild = (1,) if u % GUILD_EVERY == GUILD_AT else ()
            return (*guild, 2 + squad)

        def ent_teams_of(u: int, moved: bool) -> tuple[int, ...]:
            team = (u % eng + (1 if moved and u % MOVER_EVERY == MOVER_AT else 0)) % eng
            return (1 if u < users else 2, 3 + team)

        self._scopes = {
            "organization": _ScopeTeams(
                teams=org_teams,
                users=users,
                first_day=first_day,
                move_day=self.move_day,
                pilot=_spread(users),
                teams_of=org_teams_of,
            ),
            "enterprise": _ScopeTeams(
                teams=ent_teams,
                users=total,
                first_day=first_day,
                move_day=self.move_day,
                pilot=_spread(total),
                teams_of=ent_teams_of,
            ),
        }
        self._members = lru_cache(maxsize=64)(self._make_members)

    def teams(self, scope: str) -> list[Team]:
        return list(self._scopes[scope].teams)

    def team(self, scope: str, slug: str) -> Team:
        """A team by its slug before any rename."""
        return next(t for t in self._scopes[scope].teams if t.slug == slug)

    def pilot_listed_from(self, scope: str) -> date | None:
        return self._scopes[scope].pilot_listed_from()

    def squad_of(self, u: int, day: date) -> Team:
        """User u's organization squad on `day` (after the move for a mover)."""
        teams = self._scopes["organization"]
        index = teams._teams_of(u, day >= self.move_day)[-1]
        return teams.teams[index]

    def enterprise_team_of(self, u: int, day: date) -> Team:
        """Enterprise user u's engineering team on `day` (after the move for a mover)."""
        teams = self._scopes["enterprise"]
        index = teams._teams_of(u, day >= self.move_day)[-1]
        return teams.teams[index]

    def members(self, scope: str, day: date) -> tuple[TeamMembership, ...]:
        return self._members(scope, day)

    def _make_members(self, scope: str, day: date) -> tuple[TeamMembership, ...]:
        teams = self._scopes[scope]
        pairs = teams.memberships(day)
        sizes = [0] * len(teams.teams)
        for _, t in pairs:
            sizes[t] += 1
        slugs = [team.slug_on(day, self.rename_day) for team in teams.teams]
        out = []
        for u, t in pairs:
            login, user_id = self._identity(u)
            out.append(TeamMembership(user_id, login, teams.teams[t].team_id, slugs[t], sizes[t] >= MIN_LISTED_MEMBERS))
        return tuple(out)

    def lines(self, *, scope: str, day: date, ids: dict[str, str]) -> Iterator[bytes]:
        """The user-teams report of the day: one NDJSON line per listed (user, team); `ids` the
        entity ids a line of the scope names."""
        for m in self.members(scope, day):
            if m.listed:
                yield (
                    json.dumps(
                        {
                            "user_id": m.user_id,
                            "user_login": m.user_login,
                            "day": day.isoformat(),
                            **ids,
                            "team_id": m.team_id,
                            "slug": m.slug,
                        },
                        separators=(",", ":"),
                    )
                    + "\n"
                ).encode()


def _spread(users: int) -> list[int]:
    """Up to PILOT_MAX pilot members spread over the users, skipping the two first (owner, member)."""
    if users <= 2:
        return []
    step = max(1, (users - 2) // PILOT_MAX)
    return list(range(2, users, step))[:PILOT_MAX]
