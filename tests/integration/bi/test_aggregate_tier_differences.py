"""No figure of the aggregate tier is about 1..k-1 people, whatever a reader subtracts.

A property: random small worlds (users in organizations of an enterprise, some organizations'
reports fetched and some not, random activity on random days, random teams of any scope that
overlap and nest, users of two agents), groups of 1..k-1 people among them, each written as the
facts a landing leaves (user rows and the service's own day records, which are their sums) into a
migrated DuckDB warehouse; then the real rollups, the real publish of the lake and the tier, and
the tier read through its serving database. Every figure shown is worked out from the world as a
set of person-days (a count: a set of people), checked against the value shown, and then every
difference a reader can take is tried: any two shown figures of the same kind (scope day against
scope day, enterprise against organization, period against day, team against team or scope,
agent against agent, a source of vendor_daily against the same figures of the others: the service's
against a scope's or a team's, an agent app's against agent_daily's, whose users include those its
vendor's own row counts), a period minus all its shown days, an enterprise minus all its shown
organizations, a scope or a team minus any set of shown teams within it that do not overlap.
None may be exactly the figure of a nonempty group of fewer than k people, and no shown figure
may itself be about 1..k-1 people.

The worlds' user-days are of every class the service's documents give (emulator/telemetry.py),
on days before and after their dates: IDE activity (in the service's daily_active_users),
CLI only (sums, active on a surface, never in daily_active_users), desktop app only (sums and in
daily_active_users from APP_IN_COUNTS_FROM; before it active on a surface with no sums and not
counted, which the tier does not judge yet: test_members_active_without_counts_are_behind_no_sum),
server-side telemetry only (from SERVER_SIDE_FROM: a line with no activity that
daily_active_users counts). So a team's active_users (any surface) and its scope's
daily_active_users are counts of different definitions, and differences between them are tried
as sets of people like any other. Their people use Claude Code and Cursor too on some days (some
with no session, some no login maps: counted under scope `vendor`), and agent app 101 is Claude
Code's, so a person-day of both is counted once, in Claude Code's row.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import date, timedelta
from itertools import combinations
from pathlib import Path
from typing import Any

import duckdb
import pytest
from hypothesis import HealthCheck, Phase, example, given, settings
from hypothesis import strategies as st

from pipelines.publish.aggregate import aggregate_serving
from pipelines.publish.lake import publish
from pipelines.warehouse import migrate
from pipelines.warehouse.rollups import rebuild_rollups
from pipelines.warehouse.sql import connect

SERVER_SIDE_FROM = date(2026, 6, 15)  # emulator/telemetry.py
APP_IN_COUNTS_FROM = date(2026, 7, 28)

LAST_DAY = date(2026, 11, 20)
ENTERPRISE = "ent"
ORGS = ("o0", "o1", "o2")
AGENTS = ("101", "102")
AGENT_VENDORS = {"101": "claude_code"}  # core.agent_vendors: agent app 101 is Claude Code's
# Each vendor's figures in bi.assistant_usage_daily, and the index of the one that makes a person active.
VENDOR_FIGURES = {"claude_code": ("sessions", "lines_added"), "cursor": ("requests", "lines_added", "lines_accepted")}
SUMS = (
    "user_initiated_interaction_count",
    "code_generation_activity_count",
    "code_acceptance_activity_count",
    "loc_suggested_to_add_sum",
    "loc_added_sum",
    "loc_deleted_sum",
)
PersonDay = tuple[int, date]


@dataclass
class World:
    k: int
    org_of: dict[int, str]  # every enterprise user's organization
    fetched: tuple[str, ...]  # organizations whose reports were landed (the enterprise's always are)
    days: tuple[date, ...]
    activity: dict[PersonDay, tuple[int, ...]]  # active person-days: their SUMS
    agent: dict[PersonDay, tuple[str, int]]  # (agent, job starts) of some active person-days
    teams: dict[tuple[str, str, int], frozenset[int]] = field(default_factory=dict)  # (scope, name, id): members
    # Person-days without IDE activity: "cli" (its sums in activity), "app" (from APP_IN_COUNTS_FROM
    # its sums in activity, before it none), "server" (no activity; from SERVER_SIDE_FROM).
    surface: dict[PersonDay, str] = field(default_factory=dict)
    # The vendors' own person-days (people beyond org_of are the vendor's only): each VENDOR_FIGURES'
    # values, and the people no identity maps to a login (counted under scope `vendor`).
    vendor: dict[tuple[str, int, date], tuple[int, ...]] = field(default_factory=dict)
    unmapped: frozenset[int] = frozenset()

    def vendor_people(self, vendor: str, scope: str, name: str, day: date) -> list[int]:
        """Whose vendor row of the day lands in the scope: the mapped people it lists, else under scope `vendor`."""
        users = {u for (v, u, d) in self.vendor if v == vendor and d == day}
        if scope == "vendor":
            return sorted(u for u in users if u in self.unmapped or u not in self.org_of)
        return sorted(u for u in users & self.scope_users(scope, name) if u not in self.unmapped)

    def counted_agent(self, u: int, day: date, scope: str, name: str) -> bool:
        """An agent app's person-day is not counted beside its vendor's own row of the person and day."""
        agent_id = self.agent[(u, day)][0]
        vendor = AGENT_VENDORS.get(agent_id)
        return vendor is None or u not in self.vendor_people(vendor, scope, name, day)

    def counted(self, u: int, day: date) -> bool:
        """Whether the service's daily_active_users (weekly, monthly) counts the person-day."""
        kind = self.surface.get((u, day))
        if kind is None:
            return (u, day) in self.activity
        return (kind == "app" and day >= APP_IN_COUNTS_FROM) or (kind == "server" and day >= SERVER_SIDE_FROM)

    def any_surface(self, u: int, day: date) -> bool:
        """Whether the person-day is active on any documented surface (core.active_on_any_surface)."""
        return (u, day) in self.activity or self.surface.get((u, day)) in ("cli", "app")

    def scope_users(self, scope: str, name: str) -> set[int]:
        return set(self.org_of) if scope == "enterprise" else {u for u, o in self.org_of.items() if o == name}

    def scopes(self) -> list[tuple[str, str]]:
        return [("enterprise", ENTERPRISE), *(("organization", o) for o in self.fetched)]


@st.composite
def worlds(draw: st.DrawFn) -> World:
    k = draw(st.integers(2, 4))
    users = draw(st.integers(2, 16))
    org_of = {u: draw(st.sampled_from(ORGS)) for u in range(1, users + 1)}
    fetched = tuple(o for o in ORGS if o == "o0" or draw(st.booleans()))
    # Days within a few weeks, so periods hold several days and some days fall in a second period;
    # some worlds' other days straddle the dates the service began counting app-only and
    # server-side-only users.
    offsets = draw(st.sets(st.integers(0, 35), min_size=1, max_size=4))
    newest = draw(
        st.sampled_from((LAST_DAY, APP_IN_COUNTS_FROM + timedelta(days=3), SERVER_SIDE_FROM + timedelta(days=3)))
    )
    days = tuple(sorted({newest - timedelta(days=n) for n in offsets} | {LAST_DAY}))
    activity: dict[PersonDay, tuple[int, ...]] = {}
    agent: dict[PersonDay, tuple[str, int]] = {}
    surface: dict[PersonDay, str] = {}
    small = st.integers(0, 9)
    for day in days:
        for u in org_of:
            kind = draw(st.integers(0, 11))
            if kind < 6:
                activity[(u, day)] = (draw(st.integers(1, 9)), *(draw(small) for _ in SUMS[1:]))
                if draw(st.booleans()):
                    agent[(u, day)] = (draw(st.sampled_from(AGENTS)), draw(st.integers(1, 4)))
            elif kind in (6, 7):
                surface[(u, day)] = "cli" if kind == 6 else "app"
                # A desktop-app-only day before APP_IN_COUNTS_FROM: active, its line without counts.
                if kind == 6 or day >= APP_IN_COUNTS_FROM:
                    activity[(u, day)] = (draw(st.integers(1, 9)), *(draw(small) for _ in SUMS[1:]))
            elif kind in (8, 9) and day >= SERVER_SIDE_FROM:
                surface[(u, day)] = "server"
    world = World(k, org_of, fetched, days, activity, agent, surface=surface)
    team_id = 1000
    for scope, name in world.scopes():
        people = sorted(world.scope_users(scope, name))
        made: list[frozenset[int]] = []
        for _ in range(draw(st.integers(0, 4)) if people else 0):
            if made and draw(st.booleans()):
                # Nearly another team: a member or two fewer, or more.
                base = set(draw(st.sampled_from(made)))
                base ^= draw(st.sets(st.sampled_from(people), min_size=1, max_size=2))
                members = frozenset(base)
            else:
                members = frozenset(draw(st.sets(st.sampled_from(people), min_size=1)))
            if members:
                made.append(members)
                team_id += 1
                world.teams[(scope, name, team_id)] = members
    # Each person's own use of each vendor on some days (people beyond the service's too), a
    # vendor's row of a person with no figure above 0 but the first not active; some unmapped.
    outsiders = range(100, 100 + draw(st.integers(0, 3)))
    for day in days:
        for u in (*org_of, *outsiders):
            for vendor, names in VENDOR_FIGURES.items():
                values = tuple(draw(st.integers(0, 9)) for _ in names)
                if any(values) and draw(st.integers(0, 2)):
                    world.vendor[(vendor, u, day)] = values
    world.unmapped = frozenset(draw(st.sets(st.sampled_from(sorted(org_of)), max_size=3)))
    return world


_FACTS = """
INSERT INTO core.user_daily_totals BY NAME
SELECT scope, scope_name, day, '1-day' AS report_kind, user_id, 'dev-' || user_id AS user_login,
       i > 0 AND kind IS NULL AS used_chat, kind = 'cli' AS used_cli, kind = 'app' AS used_assistant_app,
       i AS user_initiated_interaction_count, g AS code_generation_activity_count,
       a AS code_acceptance_activity_count, ls AS loc_suggested_to_add_sum, la AS loc_added_sum,
       ld AS loc_deleted_sum, TRUE AS agent_breakdown_present, TIMESTAMPTZ '2026-11-25 06:00:00+00' AS fetched_at,
       TRUE AS is_final
FROM w_user_days;
INSERT INTO core.daily_totals BY NAME
SELECT d.scope, d.scope_name, d.day, '1-day' AS report_kind,
       sum(d.i) AS user_initiated_interaction_count, sum(d.g) AS code_generation_activity_count,
       sum(d.a) AS code_acceptance_activity_count, sum(d.ls) AS loc_suggested_to_add_sum,
       sum(d.la) AS loc_added_sum, sum(d.ld) AS loc_deleted_sum,
       count(*) FILTER (WHERE d.counted) AS daily_active_users,
       (SELECT count(DISTINCT w.user_id) FROM w_user_days AS w
         WHERE w.scope = d.scope AND w.scope_name = d.scope_name AND w.counted AND w.day BETWEEN d.day - 6 AND d.day)
           AS weekly_active_users,
       (SELECT count(DISTINCT w.user_id) FROM w_user_days AS w
         WHERE w.scope = d.scope AND w.scope_name = d.scope_name AND w.counted AND w.day BETWEEN d.day - 27 AND d.day)
           AS monthly_active_users,
       TRUE AS agent_breakdown_present, TIMESTAMPTZ '2026-11-25 06:00:00+00' AS fetched_at, TRUE AS is_final
FROM w_user_days AS d
GROUP BY d.scope, d.scope_name, d.day;
INSERT INTO core.agent_activity BY NAME
SELECT scope, scope_name, 'user' AS level, day, user_id, 'dev-' || user_id AS user_login, agent_id,
       'Agent ' || agent_id AS agent_name, job_starts AS agent_job_starts,
       TIMESTAMPTZ '2026-11-25 06:00:00+00' AS fetched_at
FROM w_user_days WHERE agent_id IS NOT NULL;
INSERT INTO core.agent_activity BY NAME
SELECT scope, scope_name, 'aggregate' AS level, day, agent_id, any_value(agent_name) AS agent_name,
       sum(agent_job_starts) AS agent_job_starts, count(*) AS session_count, max(fetched_at) AS fetched_at
FROM core.agent_activity WHERE level = 'user' GROUP BY scope, scope_name, day, agent_id;
INSERT INTO core.agent_days BY NAME
SELECT scope, scope_name, level, day, agent_id, agent_name, sum(agent_job_starts) AS agent_job_starts,
       max(fetched_at) AS fetched_at,
       CASE WHEN level = 'user' THEN count(DISTINCT user_id) END AS agent_users,
       CAST(sum(session_count) AS BIGINT) AS session_count
FROM core.agent_activity GROUP BY scope, scope_name, level, day, agent_id, agent_name;
INSERT INTO core.dim_agent BY NAME
SELECT agent_id, any_value(agent_name) AS agent_name, min(day) AS first_seen_day, max(day) AS last_seen_day
FROM core.agent_days GROUP BY agent_id;
INSERT INTO core.user_team_days BY NAME
SELECT m.scope, m.scope_name, d.day, m.user_id, 'dev-' || m.user_id AS user_login, m.team_id,
       'team-' || m.team_id AS slug, TIMESTAMPTZ '2026-11-25 06:00:00+00' AS fetched_at, TRUE AS is_final
FROM w_members AS m
JOIN (SELECT DISTINCT scope, scope_name, day FROM w_user_days) AS d USING (scope, scope_name);
INSERT INTO core.team_days BY NAME
SELECT scope, scope_name, day, team_id, any_value(slug) AS slug, count(*) AS members, max(fetched_at) AS fetched_at
FROM core.user_team_days GROUP BY scope, scope_name, day, team_id;
INSERT INTO core.dim_team BY NAME
SELECT scope, scope_name, team_id, any_value(slug) AS slug, min(day) AS first_seen_day, max(day) AS last_seen_day
FROM core.team_days GROUP BY scope, scope_name, team_id;
"""


def _land(conn: duckdb.DuckDBPyConnection, world: World) -> None:
    """The facts a landing of each scope's reports of each day leaves: a user row for every user of
    the scope (inactive ones too), the service's day record (their sums), agent entries at both
    levels and each day's memberships."""
    rows = []
    for scope, name in world.scopes():
        for day in world.days:
            for u in sorted(world.scope_users(scope, name)):
                sums = world.activity.get((u, day), (0,) * len(SUMS))
                agent_id, starts = world.agent.get((u, day), (None, None))
                rows.append(
                    (scope, name, day, u, *sums, agent_id, starts, world.surface.get((u, day)), world.counted(u, day))
                )
    conn.execute(
        "CREATE OR REPLACE TEMP TABLE w_user_days (scope VARCHAR, scope_name VARCHAR, day DATE,"
        " user_id BIGINT, i BIGINT, g BIGINT, a BIGINT, ls BIGINT, la BIGINT, ld BIGINT, agent_id VARCHAR,"
        " job_starts BIGINT, kind VARCHAR, counted BOOLEAN)"
    )
    conn.executemany("INSERT INTO w_user_days VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", rows)
    conn.execute(
        "CREATE OR REPLACE TEMP TABLE w_members (scope VARCHAR, scope_name VARCHAR, team_id BIGINT, user_id BIGINT)"
    )
    members = [(s, n, t, u) for (s, n, t), people in world.teams.items() for u in sorted(people)]
    if members:
        conn.executemany("INSERT INTO w_members VALUES (?, ?, ?, ?)", members)
    for statement in _FACTS.split(";"):
        if statement.strip():
            conn.execute(statement)
    _land_vendors(conn, world)
    rebuild_rollups(conn)


def _land_vendors(conn: duckdb.DuckDBPyConnection, world: World) -> None:
    """The vendors' rows as their landing leaves them, the operator's identity lines of the mapped
    people, and the agent map (core.agent_vendors) of AGENT_VENDORS."""
    landed = "TRUE, TIMESTAMPTZ '2026-11-25 06:00:00+00'"
    for (vendor, u, day), values in world.vendor.items():
        email = f"u{u}@x.example"
        if vendor == "claude_code":
            conn.execute(
                "INSERT INTO vendors.claude_code_days (day, actor_type, actor, email, num_sessions, lines_added,"
                f" is_final, fetched_at) VALUES (?, 'user_actor', ?, ?, ?, ?, {landed})",
                [day, email, email, *values],
            )
        else:
            conn.execute(
                "INSERT INTO vendors.cursor_days (day, email, is_active, composer_requests, total_lines_added,"
                f" accepted_lines_added, is_final, fetched_at) VALUES (?, ?, ?, ?, ?, ?, {landed})",
                [day, email, values[0] > 0, *values],
            )
    mapped = [u for u in world.org_of if u not in world.unmapped]
    for line, u in enumerate(mapped, start=1):
        conn.execute(
            "INSERT INTO vendors.operator_identities (read_day, email, login, line_number) VALUES (?, ?, ?, ?)",
            [LAST_DAY, f"u{u}@x.example", f"dev-{u}", line],
        )
    for agent_id, vendor in AGENT_VENDORS.items():
        conn.execute("INSERT INTO core.agent_vendors VALUES (?, ?)", [agent_id, vendor])


@dataclass(frozen=True)
class Figure:
    """One shown figure: where (table, scope or team or agent, day or period), its kind (what may
    be subtracted from what) and whom it sums over: person-days with their values; a count is a
    sum of 1 over people (day None)."""

    table: str
    key: tuple[object, ...]
    at: object
    kind: tuple[object, ...]
    parts: frozenset[tuple[tuple[int, date | None], int]]
    value: int

    @property
    def where(self) -> str:
        return f"{self.table} {self.key} {self.at}"


def _period(day: date) -> int:
    return (LAST_DAY - day).days // 28


class Truth:
    """The figures every row of the tier stands for, from the world itself."""

    def __init__(self, world: World) -> None:
        self.w = world

    def active(self, people: set[int], days: list[date]) -> list[PersonDay]:
        return [(u, d) for d in days for u in sorted(people) if (u, d) in self.w.activity]

    def sums(
        self, where: tuple[str, tuple[object, ...], object], person_days: list[PersonDay], row: dict[str, Any]
    ) -> Iterator[Figure]:
        for index, name in enumerate(SUMS):
            if name in row:
                parts = frozenset(((u, d), self.w.activity[(u, d)][index]) for u, d in person_days)
                yield Figure(*where, (name,), parts, int(row[name]))

    def count(
        self, where: tuple[str, tuple[object, ...], object], kind: tuple[object, ...], people: set[int], shown: Any
    ) -> Figure:
        return Figure(*where, kind, frozenset(((u, None), 1) for u in people), int(shown))

    def days_of(self, period: int) -> list[date]:
        return [d for d in self.w.days if _period(d) == period]

    def window(self, scope: str, name: str, first: date, last: date) -> set[int]:
        """The people the service's active-user count over first..last counts."""
        users = self.w.scope_users(scope, name)
        return {u for u in users for d in self.w.days if first <= d <= last and self.w.counted(u, d)}

    def members_active(self, team: tuple[str, str, int], days: list[date]) -> list[PersonDay]:
        """The team's members' person-days with activity: behind its sums."""
        return self.active(set(self.w.teams[team]), days)

    def members_any_surface(self, team: tuple[str, str, int], days: list[date]) -> set[int]:
        """The team's members active on any surface on the days: its active_users."""
        return {u for u in self.w.teams[team] for d in days if self.w.any_surface(u, d)}

    def agent_days(self, scope: str, name: str, agent: str, days: list[date]) -> list[tuple[PersonDay, int]]:
        users = self.w.scope_users(scope, name)
        return [
            ((u, d), starts) for (u, d), (a, starts) in self.w.agent.items() if a == agent and u in users and d in days
        ]

    def sources(self, table: str, grain: str, r: dict[str, Any]) -> Iterator[Figure]:
        """A vendor_daily or vendor_periods row's figures, each of the kind of the tier's other
        figures of the same people and measure: the service's sums and active people as a scope's,
        an agent app's as agent_daily's (without the person-days its vendor's own row counts)."""
        s, n, source, at = r["scope"], r["scope_name"], r["source"], r[grain]
        where = (table, (s, n, source), at)
        days = [at] if grain == "day" else self.days_of(at)
        if source == "service":
            users = self.w.scope_users(s, n)
            person_days = self.active(users, days)
            for column, index in (("requests", 0), ("lines_added", SUMS.index("loc_added_sum"))):
                parts = frozenset(((u, d), self.w.activity[(u, d)][index]) for u, d in person_days)
                yield Figure(*where, (SUMS[index],), parts, int(r[column]))
            first = max(days) - timedelta(days=0 if grain == "day" else 27)
            active = {u for u in users for d in days if self.w.any_surface(u, d)}
            yield self.count(where, ("active", first, max(days)), active, r["active_people"])
        elif source.startswith("agent:"):
            agent = source.removeprefix("agent:")
            used = [
                (pd, starts) for pd, starts in self.agent_days(s, n, agent, days) if self.w.counted_agent(*pd, s, n)
            ]
            yield Figure(*where, ("agent_job_starts", agent), frozenset(used), int(r["agent_job_starts"]))
            yield self.count(where, ("agent users", agent, grain, at), {u for (u, _), _ in used}, r["active_people"])
        else:
            people = {d: self.w.vendor_people(source, s, n, d) for d in days}
            for index, column in enumerate(VENDOR_FIGURES[source]):
                parts = frozenset(((u, d), self.w.vendor[(source, u, d)][index]) for d in days for u in people[d])
                yield Figure(*where, ("vendor", source, column), parts, int(r[column]))
            active = {u for d in days for u in people[d] if self.w.vendor[(source, u, d)][0] > 0}
            yield self.count(where, ("vendor users", source, grain, at), active, r["active_people"])


def _figures(tier: duckdb.DuckDBPyConnection, truth: Truth) -> list[Figure]:
    def rows(name: str) -> list[dict[str, Any]]:
        result = tier.execute(f"SELECT * FROM aggregate.{name} WHERE NOT suppressed")
        columns = [c[0] for c in result.description]
        return [dict(zip(columns, row, strict=True)) for row in result.fetchall()]

    figures: list[Figure] = []
    for r in rows("scope_daily"):
        s, n, d = r["scope"], r["scope_name"], r["day"]
        where = ("scope_daily", (s, n), d)
        figures += truth.sums(where, truth.active(truth.w.scope_users(s, n), [d]), r)
        for column, first in (
            ("daily_active_users", d),
            ("weekly_active_users", d - timedelta(days=6)),
            ("monthly_active_users", d - timedelta(days=27)),
        ):
            figures.append(truth.count(where, ("active", first, d), truth.window(s, n, first, d), r[column]))
    for r in rows("scope_periods"):
        s, n, p = r["scope"], r["scope_name"], r["period_index"]
        where = ("scope_periods", (s, n), p)
        days = truth.days_of(p)
        figures += truth.sums(where, truth.active(truth.w.scope_users(s, n), days), r)
        newest = max(days)
        first = newest - timedelta(days=27)
        figures.append(
            truth.count(where, ("active", first, newest), truth.window(s, n, first, newest), r["monthly_active_users"])
        )
    for r in rows("team_daily"):
        team = (r["scope"], r["scope_name"], r["team_id"])
        where = ("team_daily", team, r["day"])
        active = truth.members_active(team, [r["day"]])
        figures += truth.sums(where, active, r)
        figures.append(
            truth.count(
                where, ("active", r["day"], r["day"]), truth.members_any_surface(team, [r["day"]]), r["active_users"]
            )
        )
    for r in rows("team_periods"):
        team = (r["scope"], r["scope_name"], r["team_id"])
        where = ("team_periods", team, r["period_index"])
        days = truth.days_of(r["period_index"])
        active = truth.members_active(team, days)
        figures += truth.sums(where, active, r)
        # Its distinct active users: a subset of any count over the 28 days up to its newest day.
        figures.append(
            truth.count(
                where,
                ("active", max(days) - timedelta(days=27), max(days)),
                truth.members_any_surface(team, days),
                r["active_users"],
            )
        )
    for name, grain in (("agent_daily", "day"), ("agent_periods", "period_index")):
        for r in rows(name):
            s, n, agent, at = r["scope"], r["scope_name"], r["agent_id"], r[grain]
            where = (name, (s, n, agent), at)
            days = [at] if grain == "day" else truth.days_of(at)
            used = truth.agent_days(s, n, agent, days)
            figures.append(Figure(*where, ("agent_job_starts", agent), frozenset(used), int(r["agent_job_starts"])))
            figures.append(
                Figure(
                    *where, ("agent_sessions", agent), frozenset((pd, 1) for pd, _ in used), int(r["agent_sessions"])
                )
            )
            figures.append(
                truth.count(where, ("agent users", agent, grain, at), {u for (u, _), _ in used}, r["agent_users"])
            )
    for name, grain in (("vendor_daily", "day"), ("vendor_periods", "period_index")):
        for r in rows(name):
            figures += truth.sources(name, grain, r)
    return figures


def _people(parts: frozenset[tuple[PersonDay, int]]) -> set[int]:
    return {u for (u, _), _ in parts}


def _left(whole: Figure, parts: list[Figure]) -> set[int]:
    """The people of what is left of `whole` once `parts` are taken away, when that is exact (the
    parts lie in it and do not overlap): else nobody."""
    taken: frozenset[tuple[tuple[int, date | None], int]] = frozenset()
    for part in parts:
        if not part.parts <= whole.parts or part.parts & taken:
            return set()
        taken |= part.parts
    return _people(whole.parts - taken)


def _attack(world: World, figures: list[Figure]) -> list[str]:
    """Every shown figure, and every difference, that is exactly the figure of 1..k-1 people."""
    found = [
        f"{f.where} ({f.kind[0]}) alone: {len(_people(f.parts))} people"
        for f in figures
        if 0 < len(_people(f.parts)) < world.k
    ]
    for a, b in combinations(figures, 2):
        if a.kind != b.kind:
            continue
        for whole, part in ((a, b), (b, a)):
            left = _left(whole, [part])
            if 0 < len(left) < world.k:
                found.append(f"{whole.where} minus {part.where} ({whole.kind[0]}): {len(left)} people")
    # A whole minus all its shown parts: a period minus its shown days (of the same scope, team or
    # agent), an enterprise minus its shown organizations (the same day or period).
    for whole in figures:
        # A count over a period is not the sum of its days' counts; every figure of disjoint
        # organizations is the sum of theirs.
        periods = whole.table.endswith("_periods") and whole.kind[0] in (
            *SUMS,
            "agent_job_starts",
            "agent_sessions",
            "vendor",
        )
        enterprise = whole.key[0] == "enterprise" and not whole.table.startswith("team")
        days = [
            f
            for f in figures
            if periods
            and f.table == whole.table.replace("_periods", "_daily")
            and f.key == whole.key
            and f.kind == whole.kind
            and _period(f.at) == whole.at
        ]
        organizations = [
            f
            for f in figures
            if enterprise
            and f.table == whole.table
            and f.key[0] == "organization"
            and f.key[2:] == whole.key[2:]
            and f.at == whole.at
            and f.kind == whole.kind
        ]
        for taken in (days, organizations):
            left = _left(whole, taken) if taken else set()
            if 0 < len(left) < world.k:
                found.append(f"{whole.where} minus {len(taken)} shown parts ({whole.kind[0]}): {len(left)} people")
        found += _minus_teams(world, whole, figures)
    return found


def _minus_teams(world: World, whole: Figure, figures: list[Figure]) -> list[str]:
    """A scope's or a team's figure minus any set of shown teams' figures of the same kind, day or
    period that lie within it and do not overlap (squads splitting an organization, one hidden)."""
    teams = {
        "scope_daily": "team_daily",
        "team_daily": "team_daily",
        "scope_periods": "team_periods",
        "team_periods": "team_periods",
        "vendor_daily": "team_daily",
        "vendor_periods": "team_periods",
    }.get(whole.table)
    inside = [
        f for f in figures if f.table == teams and f.at == whole.at and f.kind == whole.kind and f.parts < whole.parts
    ]
    found: list[str] = []

    def grow(chosen: list[Figure], taken: frozenset[tuple[tuple[int, date | None], int]], rest: list[Figure]) -> None:
        for n, part in enumerate(rest):
            if part.parts & taken:
                continue
            now = [*chosen, part]
            left = _people(whole.parts - taken - part.parts)
            if 0 < len(left) < world.k:
                found.append(f"{whole.where} minus {len(now)} teams ({whole.kind[0]}): {len(left)} people")
            grow(now, taken | part.parts, rest[n + 1 :])

    grow([], frozenset(), inside)
    return found


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("template") / "warehouse.duckdb"
    with connect(path) as conn:
        migrate(conn)
    return path


def _published_figures(world: World, template: Path, root: Path) -> tuple[list[Figure], list[str]]:
    shutil.rmtree(root, ignore_errors=True)
    root.mkdir(parents=True)
    shutil.copy(template, root / "warehouse.duckdb")
    with connect(root / "warehouse.duckdb") as conn:
        _land(conn, world)
        publish(conn, lake=root / "lake", serving=root / "serving.duckdb", k=world.k, full=True)
    truth = Truth(world)
    with duckdb.connect(str(aggregate_serving(root / "serving.duckdb")), read_only=True) as tier:
        figures = _figures(tier, truth)
    wrong = [
        f"{f.where} {f.kind}: shown {f.value}, is {sum(v for _, v in f.parts)}"
        for f in figures
        if f.value != sum(v for _, v in f.parts)
    ]
    return figures, wrong


def _squads() -> World:
    """Squads splitting an organization, one of them of fewer than k active members (hidden by its
    own count): the organization minus the others is that squad's figures; and a tribe (a team)
    holding squads, one of them hidden the same way."""
    org_of = {u: "o0" for u in range(1, 15)}
    day = LAST_DAY
    activity = {(u, day): (u, u % 3, 1, 2, u, 1) for u in org_of}
    world = World(3, org_of, ("o0",), (day,), activity, {})
    for team_id, members in ((1001, range(1, 5)), (1002, range(5, 9)), (1003, range(9, 11)), (1004, range(11, 15))):
        world.teams[("organization", "o0", team_id)] = frozenset(members)
    # A tribe of squads 1001 and 1002 and one person of 1003.
    world.teams[("organization", "o0", 1006)] = frozenset(range(1, 10))
    return world


def _crossing_teams() -> World:
    """Two squads splitting an organization but one person, and a guild crossing one squad that
    holds that person: nobody is in no team, yet the organization minus the two squads is that one
    person's figures."""
    org_of = {u: "o0" for u in range(1, 12)}
    activity = {(u, LAST_DAY): (u, 1, u % 2, 3, u, 2) for u in org_of}
    world = World(3, org_of, ("o0",), (LAST_DAY,), activity, {})
    for team_id, members in ((1001, range(1, 6)), (1002, range(6, 11)), (1003, (1, 2, 3, 4, 11))):
        world.teams[("organization", "o0", team_id)] = frozenset(members)
    return world


# Each example lands and publishes a warehouse (about 2.5 s): no shrinking, whose many publishes
# would take minutes; a failure names every difference it found.
@settings(
    max_examples=12,
    deadline=None,
    phases=[Phase.explicit, Phase.reuse, Phase.generate],
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(world=worlds())
@example(world=_squads())
@example(world=_crossing_teams())
def test_no_difference_of_shown_figures_is_the_figure_of_fewer_than_k_people(world, template, tmp_path):
    figures, wrong = _published_figures(world, template, tmp_path / "world")
    assert not wrong, "the world's figures are the tier's"
    found = _attack(world, figures)
    assert not found, "; ".join(found[:8])


def _telemetry_behind_a_day() -> World:
    """A day of one person's activity beside users only the service's telemetry saw (in its
    daily_active_users, behind no sum): k active users, the figures of one. And the day before,
    shown, in the same period: the period minus it is that day."""
    org_of = {u: "o0" for u in range(1, 5)}
    before = LAST_DAY - timedelta(days=1)
    activity = {(1, LAST_DAY): (4, 2, 1, 6, 5, 1), **{(u, before): (u, 1, 1, 2, u, 1) for u in (1, 2, 3)}}
    surface = {(u, LAST_DAY): "server" for u in (2, 3, 4)}
    return World(3, org_of, ("o0",), (before, LAST_DAY), activity, {}, surface=surface)


def _telemetry_outside_organization() -> World:
    """The enterprise's users outside its one shown organization: one with activity and three its
    telemetry alone saw. Its count is 4 more than the organization's, its sums one person's more."""
    org_of = {**{u: "o0" for u in range(1, 5)}, **{u: "o1" for u in range(5, 9)}}
    activity = {(u, LAST_DAY): (u, 1, 1, 2, u, 1) for u in range(1, 6)}
    surface = {(u, LAST_DAY): "server" for u in (6, 7, 8)}
    return World(3, org_of, ("o0",), (LAST_DAY,), activity, {}, surface=surface)


def _cli_members_hold_an_organization() -> World:
    """An enterprise team holding an organization and one person more: the organization's count
    leaves out its three CLI-only users, so the team's active users look 4 more than the
    organization's while its sums are one person's more."""
    org_of = {**{u: "o0" for u in range(1, 7)}, **{u: "o1" for u in range(7, 14)}}
    activity = {(u, LAST_DAY): (u, 1, 1, 2, u, 1) for u in range(1, 11)}
    surface = {**{(u, LAST_DAY): "cli" for u in (4, 5, 6)}, **{(u, LAST_DAY): "server" for u in (11, 12, 13)}}
    world = World(3, org_of, ("o0",), (LAST_DAY,), activity, {}, surface=surface)
    world.teams[("enterprise", ENTERPRISE, 1001)] = frozenset(range(1, 8))
    return world


def _telemetry_beside_two_organizations() -> World:
    """Two shown organizations and, outside them, one person with activity and three users the
    enterprise's telemetry alone saw: its period minus both organizations' is that one person's."""
    org_of = {**{u: "o0" for u in range(1, 5)}, **{u: "o2" for u in range(5, 9)}, **{u: "o1" for u in range(9, 13)}}
    # Neither organization's figures could be a part of the other's.
    activity = {(u, LAST_DAY): (u, 9 if u < 5 else 1, 1, 2, u, 1) for u in range(1, 10)}
    surface = {(u, LAST_DAY): "server" for u in (10, 11, 12)}
    return World(3, org_of, ("o0", "o2"), (LAST_DAY,), activity, {}, surface=surface)


def _telemetry_beside_a_team_period() -> World:
    """A team of every organization user with activity over a period: each day its count is the
    organization's (a CLI-only member where the organization counts a telemetry-only user), but
    the organization's 28-day count is the team's period's and that one telemetry-only user."""
    org_of = {u: "o0" for u in range(1, 6)}
    before = LAST_DAY - timedelta(days=5)
    activity = {
        **{(u, LAST_DAY): (u, 1, 1, 2, u, 1) for u in range(1, 5)},
        **{(u, before): (u, 2, 1, 1, u, 1) for u in range(1, 5)},
    }
    world = World(
        3, org_of, ("o0",), (before, LAST_DAY), activity, {}, surface={(4, before): "cli", (5, before): "server"}
    )
    world.teams[("organization", "o0", 1001)] = frozenset(range(1, 5))
    return world


def _organization_period_of_a_day_hidden_beside_the_enterprise() -> World:
    """An organization active on one day of a period, hidden that day beside its enterprise's (one
    person with activity and three telemetry-only users outside it), while the enterprise's other
    day of the period has others: the organization's period is that hidden day, and the
    enterprise's day minus it one person's figures."""
    org_of = {**{u: "o2" for u in range(5, 9)}, **{u: "o1" for u in range(9, 13)}}
    before = LAST_DAY - timedelta(days=3)
    activity = {
        **{(u, LAST_DAY): (u, 1, 1, 2, u, 1) for u in range(5, 10)},
        **{(u, before): (u, 2, 1, 1, u, 1) for u in range(9, 13)},
    }
    surface = {(u, LAST_DAY): "server" for u in (10, 11, 12)}
    return World(3, org_of, ("o2",), (before, LAST_DAY), activity, {}, surface=surface)


def _telemetry_beside_a_team() -> World:
    """A team of every organization user with activity, and one its telemetry alone saw: the same
    sums, but the organization's count is the team's and one person."""
    org_of = {u: "o0" for u in range(1, 6)}
    activity = {(u, LAST_DAY): (u, 1, 1, 2, u, 1) for u in range(1, 5)}
    world = World(3, org_of, ("o0",), (LAST_DAY,), activity, {}, surface={(5, LAST_DAY): "server"})
    world.teams[("organization", "o0", 1001)] = frozenset(range(1, 5))
    return world


def _team_holds_an_organization_s_count() -> World:
    """An enterprise team of an organization's three counted users and one of another
    organization's: the organization's sums hold its CLI-only user's too, so neither's sums lie
    within the other's, but the team's active users less the organization's count is that one
    person (found by CI's draw)."""
    org_of = {**{u: "o2" for u in range(1, 5)}, **{u: "o0" for u in range(5, 11)}}
    # One member's deletions more than the other organization's: the team within neither's sums.
    activity = {
        (1, LAST_DAY): (2, 1, 9, 2, 1, 1),
        **{(u, LAST_DAY): (u, 1, 0, 2, u, 50 if u == 2 else 1) for u in range(2, 11)},
    }
    world = World(3, org_of, ("o0", "o2"), (LAST_DAY,), activity, {}, surface={(1, LAST_DAY): "cli"})
    world.teams[("enterprise", ENTERPRISE, 1001)] = frozenset({2, 3, 4, 5})
    return world


def _team_period_holds_an_organization_s_28_days() -> World:
    """An enterprise team of an organization's users and one person of another, each day two
    more than the organization's count (a member active only in the CLI that day), but over the
    period only the one person more: team period minus the organization's 28-day count."""
    before = LAST_DAY - timedelta(days=3)
    org_of = {**{u: "o2" for u in range(1, 5)}, **{u: "o0" for u in range(5, 14)}}
    activity: dict[PersonDay, tuple[int, ...]] = {}
    for day in (before, LAST_DAY):
        activity[(1, day)] = (2, 1, 9, 2, 1, 1)  # the organization's CLI-only user: its sums hold no team's
        activity.update({(u, day): (u, 1, 0, 2, u, 60 if u == 5 else 1) for u in (2, 3, 4, *range(5, 14))})
    surface = {(1, before): "cli", (1, LAST_DAY): "cli", (4, before): "cli", (3, LAST_DAY): "cli"}
    world = World(2, org_of, ("o0", "o2"), (before, LAST_DAY), activity, {}, surface=surface)
    world.teams[("enterprise", ENTERPRISE, 1001)] = frozenset({2, 3, 4, 5})
    return world


@pytest.mark.parametrize(
    "world",
    [
        pytest.param(_team_holds_an_organization_s_count(), id="enterprise team holding an organization's count"),
        pytest.param(
            _team_period_holds_an_organization_s_28_days(),
            id="enterprise team period holding an organization's 28-day count",
        ),
        pytest.param(_telemetry_behind_a_day(), id="telemetry-only users behind a day and its period"),
        pytest.param(_telemetry_outside_organization(), id="enterprise minus organization, telemetry-only outside"),
        pytest.param(
            _cli_members_hold_an_organization(), id="enterprise team holding an organization of CLI-only users"
        ),
        pytest.param(_telemetry_beside_a_team(), id="organization count minus team count, telemetry-only beside it"),
        pytest.param(_telemetry_beside_two_organizations(), id="enterprise period minus organizations' periods"),
        pytest.param(
            _telemetry_beside_a_team_period(), id="organization 28-day count minus team period's active users"
        ),
        pytest.param(
            _organization_period_of_a_day_hidden_beside_the_enterprise(),
            id="enterprise day minus an organization period of one hidden day",
        ),
    ],
)
def test_counts_of_other_definitions_leave_no_group_of_fewer_than_k(world, template, tmp_path):
    """The service's active users and the lines' (a team's) are not one definition: neither a
    figure nor a difference a reader takes across them is about 1..k-1 people."""
    figures, wrong = _published_figures(world, template, tmp_path / "world")
    assert not wrong, "the world's figures are the tier's"
    found = _attack(world, figures)
    assert not found, "; ".join(found[:8])


def _app_only_before_its_counts() -> World:
    """A team of three active members on a day before APP_IN_COUNTS_FROM: one with activity, two
    active in the desktop app only, whose lines carry no counts yet. Its active_users (any surface)
    is k, its sums one person's."""
    org_of = {u: "o0" for u in range(1, 4)}
    day = APP_IN_COUNTS_FROM - timedelta(days=8)
    world = World(
        3,
        org_of,
        ("o0",),
        (day, LAST_DAY),
        {(1, day): (4, 2, 1, 6, 5, 1)},
        {},
        surface={(2, day): "app", (3, day): "app"},
    )
    world.teams[("organization", "o0", 1001)] = frozenset(org_of)
    return world


def test_members_active_without_counts_are_behind_no_sum(template, tmp_path):
    world = _app_only_before_its_counts()
    figures, wrong = _published_figures(world, template, tmp_path / "world")
    assert not wrong, "the world's figures are the tier's"
    found = _attack(world, figures)
    assert not found, "; ".join(found[:8])
