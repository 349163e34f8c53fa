"""A small hand-built warehouse with known numbers, shaped to tempt a view into the forbidden sums.

Two 28-day periods of one organization: Alpha is renamed half-way and grows, Bravo is only in the
older period (gone), Charlie only in the newer one (new), Delta shrinks. Every 9th day the
aggregate and user-level reports omit the agent array, and the newest 3 days were fetched before
they were final (provisional, still filling in). Top-level counts are ~1,000,000 and agent
job starts small, so any sum of the two lands on a number no honest column can hold.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import duckdb

from pipelines.warehouse import migrate
from pipelines.warehouse.rollups import rebuild_rollups, refresh_rollups
from pipelines.warehouse.sql import run_sql

LAST_DAY = date(2026, 3, 31)
DAYS = 56
PROVISIONAL_DAYS = 3
SCOPE, SCOPE_NAME = "organization", "acme"
USERS = (101, 102, 103, 104, 105, 106)
TOP_LEVEL = 1_000_000  # top-level user_initiated_interaction_count per day, plus 1000 per day index
FETCHED = datetime(2026, 4, 1, tzinfo=UTC)
# Teams (extension): user 101 is on both; every team every day.
TEAMS_OF = {
    101: [(1, "platform"), (2, "web")],
    102: [(1, "platform")],
    103: [(1, "platform")],
    104: [(2, "web")],
    105: [(2, "web")],
    106: [(2, "web")],
}
NAMES = {"a-1": "Alpha", "b-2": "Bravo", "c-3": "Charlie", "d-4": "Delta"}
# Hand-built rows name their columns: tables gain columns (is_final, …) that such rows leave NULL.
INSERT_AGENT_ACTIVITY = (
    "INSERT INTO core.agent_activity (scope, scope_name, level, day, user_id, user_login, agent_id, agent_name,"
    " agent_job_starts, session_count, fetched_at) VALUES"
)
INSERT_USER_TEAM_DAY = (
    "INSERT INTO core.user_team_days (scope, scope_name, day, user_id, user_login, entity_id, team_id, slug,"
    " fetched_at) VALUES"
)


def _agents_of(day_index: int) -> dict[str, int]:
    """agent_id → that day's aggregate job starts (day_index 0 is the oldest day)."""
    newer = day_index >= DAYS - 28
    return {
        "a-1": 9 if newer else 4,
        **({} if newer else {"b-2": 5}),
        **({"c-3": 3} if newer else {}),
        "d-4": 2 if newer else 6,
    }


@dataclass
class Expected:
    """The numbers the views must show, computed here in Python from the rows inserted."""

    job_starts: dict[tuple[date, str], int] = field(default_factory=dict)
    sessions: dict[tuple[date, str], int] = field(default_factory=dict)
    users: dict[tuple[date, str], set[int]] = field(default_factory=dict)
    gap_days: set[date] = field(default_factory=set)
    provisional_days: set[date] = field(default_factory=set)
    top_level: dict[date, int] = field(default_factory=dict)
    user_top_level: dict[date, int] = field(default_factory=dict)
    names: dict[str, str] = field(default_factory=dict)

    def tempting_sums(self) -> set[int]:
        """Values a view would show if it summed the two measures or mixed levels' sessions."""
        out: set[int] = set()
        for day, top in self.top_level.items():
            starts = sum(v for (d, _), v in self.job_starts.items() if d == day)
            sessions = sum(v for (d, _), v in self.sessions.items() if d == day)
            out.add(top + self.user_top_level[day])
            if starts:  # on a gap day "top + 0" is the honest top-level count itself
                out |= {top + starts, top + sessions, self.user_top_level[day] + starts}
            for (d, _), v in self.job_starts.items():
                if d == day:
                    out.add(top + v)
        total_top = sum(self.top_level.values())
        out.add(total_top + sum(self.job_starts.values()))
        return out


def build_warehouse(path: Path) -> Expected:
    """Create the warehouse at `path` (migrations and views included) and return its expected numbers."""
    expected = Expected()
    conn = duckdb.connect(str(path))
    try:
        migrate(conn)
        for i in range(DAYS):
            day = LAST_DAY - timedelta(days=DAYS - 1 - i)
            gap = i % 9 == 4
            agents = {} if gap else _agents_of(i)
            if gap:
                expected.gap_days.add(day)
            top = TOP_LEVEL + 1000 * i
            expected.top_level[day] = top
            # The newest PROVISIONAL_DAYS were fetched before they were final: still filling in.
            final = i < DAYS - PROVISIONAL_DAYS
            if not final:
                expected.provisional_days.add(day)
            conn.execute(
                "INSERT INTO core.daily_totals (scope, scope_name, day, report_kind, user_initiated_interaction_count,"
                " code_generation_activity_count, code_acceptance_activity_count, daily_active_users,"
                " agent_breakdown_present, is_final) VALUES (?, ?, ?, '1-day', ?, 200, 50, 6, ?, ?)",
                [SCOPE, SCOPE_NAME, day, top, not gap, final],
            )
            for agent_id, starts in agents.items():
                sessions = starts + 1
                name = "Alpha (beta)" if agent_id == "a-1" and i < 20 else NAMES[agent_id]
                conn.execute(
                    INSERT_AGENT_ACTIVITY + " (?, ?, 'aggregate', ?, NULL, NULL, ?, ?, ?, ?, ?)",
                    [SCOPE, SCOPE_NAME, day, agent_id, name, starts, sessions, FETCHED],
                )
                expected.job_starts[(day, agent_id)] = starts
                expected.sessions[(day, agent_id)] = sessions
                expected.names[agent_id] = name
            user_top = 0
            for n, user_id in enumerate(USERS):
                # User n uses the agents whose position in the day's list is <= n % 3.
                mine = [a for k, a in enumerate(sorted(agents)) if k <= (n + i) % 3]
                uic = 50_000 + n
                user_top += uic
                conn.execute(
                    "INSERT INTO core.user_daily_totals (scope, scope_name, day, report_kind, user_id, user_login,"
                    " user_initiated_interaction_count, agent_breakdown_present, is_final)"
                    " VALUES (?, ?, ?, '1-day', ?, ?, ?, ?, ?)",
                    [SCOPE, SCOPE_NAME, day, user_id, f"dev-{user_id}", uic, bool(mine), final],
                )
                for team_id, slug in TEAMS_OF[user_id]:
                    conn.execute(
                        INSERT_USER_TEAM_DAY + " (?, ?, ?, ?, ?, '1', ?, ?, ?)",
                        [SCOPE, SCOPE_NAME, day, user_id, f"dev-{user_id}", team_id, slug, FETCHED],
                    )
                for agent_id in mine:
                    conn.execute(
                        INSERT_AGENT_ACTIVITY + " (?, ?, 'user', ?, ?, ?, ?, ?, 1, NULL, ?)",
                        [
                            SCOPE,
                            SCOPE_NAME,
                            day,
                            user_id,
                            f"dev-{user_id}",
                            agent_id,
                            expected.names[agent_id],
                            FETCHED,
                        ],
                    )
                    expected.users.setdefault((day, agent_id), set()).add(user_id)
            expected.user_top_level[day] = user_top
        refresh_agent_dimensions(conn, first_day=LAST_DAY - timedelta(days=DAYS - 1), last_day=LAST_DAY)
        conn.execute("CREATE TEMP TABLE touched_teams (team_id BIGINT)")  # as begin_user_teams.sql leaves it
        run_sql(
            conn,
            "warehouse/refresh_team_dimensions.sql",
            scope=SCOPE,
            scope_name=SCOPE_NAME,
            start_day=LAST_DAY - timedelta(days=DAYS - 1),
            end_day=LAST_DAY,
        )
        _snapshot(conn)
        _seats(conn)
        _customizations_and_phases(conn)
        _repositories(conn)
    finally:
        conn.close()
    return expected


def refresh_agent_dimensions(conn: duckdb.DuckDBPyConnection, *, first_day: date, last_day: date) -> None:
    """Rows inserted by hand: refresh agent_days, the dimensions and the rollups as a landing would."""
    for level in ("aggregate", "user"):
        conn.execute("CREATE OR REPLACE TEMP TABLE touched_agents (agent_id VARCHAR)")
        conn.execute("CREATE OR REPLACE TEMP TABLE kept_days (day DATE)")
        run_sql(
            conn,
            "warehouse/refresh_agent_dimensions.sql",
            scope=SCOPE,
            scope_name=SCOPE_NAME,
            level=level,
            start_day=first_day,
            end_day=last_day,
        )
    refresh_rollups(conn, scope=SCOPE, scope_name=SCOPE_NAME, start_day=first_day, end_day=last_day)


def refresh_derived(conn: duckdb.DuckDBPyConnection) -> None:
    """Facts inserted by hand, any scope: agent_days, the agent dimensions and every rollup made
    again as the landings of those facts would have made them."""
    conn.execute("DELETE FROM core.agent_days")
    scopes = conn.execute(
        "SELECT scope, scope_name, level, min(day), max(day) FROM core.agent_activity GROUP BY ALL"
    ).fetchall()
    for scope, scope_name, level, first_day, last_day in scopes:
        conn.execute("CREATE OR REPLACE TEMP TABLE touched_agents (agent_id VARCHAR)")
        conn.execute("CREATE OR REPLACE TEMP TABLE kept_days (day DATE)")
        run_sql(
            conn,
            "warehouse/refresh_agent_dimensions.sql",
            scope=scope,
            scope_name=scope_name,
            level=level,
            start_day=first_day,
            end_day=last_day,
        )
    rebuild_rollups(conn)


CUSTOMIZATIONS = (
    ("aggregate", None, "skill", "pdf", 9),
    ("aggregate", None, "skill", "other", 4),
    ("aggregate", None, "plugin", "docs-kit", 3),
    ("user", USERS[0], "skill", "pdf", 2),
)


def _customizations_and_phases(conn: duckdb.DuckDBPyConnection) -> None:
    """The newest day's CLI customizations (the scope's top entries and one user's) and adoption
    phases (three of the four, as a 28-day report gives them)."""
    for phase_number, engaged, population in ((0, 2, 5), (1, 3, 9), (3, 1, 4)):
        conn.execute(
            "INSERT INTO core.adoption_phases (scope, scope_name, day, phase_number, phase, total_engaged_users,"
            " users_in_phase_28d, avg_user_initiated_interactions, report_kind, fetched_at, is_final)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, 4.5, '28-day', ?, FALSE)",
            [SCOPE, SCOPE_NAME, LAST_DAY, phase_number, f"Phase {phase_number}", engaged, population, FETCHED],
        )
    for level, user_id, category, name, count in CUSTOMIZATIONS:
        conn.execute(
            "INSERT INTO core.cli_customizations (scope, scope_name, level, day, user_id, category, name,"
            " interaction_count, fetched_at, is_final) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, FALSE)",
            [SCOPE, SCOPE_NAME, level, LAST_DAY, user_id, category, name, count, FETCHED],
        )


def _repositories(conn: duckdb.DuckDBPyConnection) -> None:
    """The newest two days' repositories: atlas (id 7, in the snapshot, whose name the report
    spells as it was before a rename) and an unsnapshotted one; atlas's review times and comment
    types on the newest day only. The snapshot says atlas is public, the report private."""
    conn.execute("UPDATE snapshots.repositories SET visibility = 'public' WHERE repository_id = 7")
    for day in (LAST_DAY - timedelta(days=1), LAST_DAY):
        for repo_id, name, created, merged in ((7, "atlas-old", 5, 3), (8, "beacon", 2, 0)):
            conn.execute(
                "INSERT INTO core.repository_days (scope, scope_name, day, organization_id, repo_id, repo_owner_name,"
                " repo_name, repo_visibility, pull_requests_total_created, pull_requests_total_created_by_assistant,"
                " pull_requests_total_merged, pull_requests_total_assistant_suggestions,"
                " pull_requests_total_assistant_applied_suggestions, fetched_at, is_final)"
                " VALUES (?, ?, ?, '1', ?, 'acme', ?, 'private', ?, 1, ?, 6, 2, ?, FALSE)",
                [SCOPE, SCOPE_NAME, day, repo_id, name, created, merged, FETCHED],
            )
    for comment_type, suggested, applied in (("bug", 4, 2), ("security", 2, 0)):
        conn.execute(
            "INSERT INTO core.repository_comment_types (scope, scope_name, day, repo_id, comment_type,"
            " total_assistant_suggestions, total_assistant_applied_suggestions, fetched_at)"
            " VALUES (?, ?, ?, 7, ?, ?, ?, ?)",
            [SCOPE, SCOPE_NAME, LAST_DAY, comment_type, suggested, applied, FETCHED],
        )
    conn.execute(
        "INSERT INTO core.repository_review_times (scope, scope_name, day, repo_id, authored_by, reviewed_by,"
        " total_merged, median_minutes_ready_to_first_review, p90_minutes_ready_to_first_review, fetched_at)"
        " VALUES (?, ?, ?, 7, 'human', 'human', 3, 42.5, 180.0, ?)",
        [SCOPE, SCOPE_NAME, LAST_DAY, FETCHED],
    )


def _snapshot(conn: duckdb.DuckDBPyConnection) -> None:
    snap = LAST_DAY + timedelta(days=1)
    conn.execute(
        "INSERT INTO snapshots.repositories (snapshot_day, repository_id, full_name, name, stargazers_count,"
        " forks_count, open_issues_count) VALUES (?, 7, 'acme/atlas', 'atlas', 11, 3, 4)",
        [snap],
    )
    conn.execute(
        "INSERT INTO snapshots.repository_stats (snapshot_day, repository_id, full_name, stargazer_count, fork_count,"
        " open_issue_count, open_pull_request_count) VALUES (?, 7, 'acme/atlas', 12, 3, 2, 1)",
        [snap],
    )
    issues = [  # (id, is_pr, days before the snapshot it was created, days before it was closed)
        (1, False, 3, None),
        (2, False, 10, 2),
        (3, False, 40, None),
        (4, True, 5, None),
        (5, True, 60, 1),
    ]
    for issue_id, is_pr, created, closed in issues:
        conn.execute(
            "INSERT INTO snapshots.issues (snapshot_day, issue_id, repository_id, repository_full_name, number,"
            " is_pull_request, state, labels, created_at, closed_at) VALUES (?, ?, 7, 'acme/atlas', ?, ?, ?, [], ?, ?)",
            [
                snap,
                issue_id,
                issue_id,
                is_pr,
                "closed" if closed else "open",
                datetime.combine(snap, datetime.min.time(), UTC) - timedelta(days=created),
                None if closed is None else datetime.combine(snap, datetime.min.time(), UTC) - timedelta(days=closed),
            ],
        )


# Seats (extension). SEAT_DAY is the newest snapshot day; its seats are
# (user_id, team (id, slug) or None for direct, plan, last activity before SEAT_DAY's 00:00 UTC
# or None for never, created before it, pending cancellation date):
SEAT_DAY = LAST_DAY + timedelta(days=1)
OLDER_SEAT_DAY = SEAT_DAY - timedelta(days=7)
SEATS = (
    (101, (1, "platform"), "business", timedelta(days=7), timedelta(days=200), None),  # active_7d, at its edge
    (102, (1, "platform"), "business", timedelta(days=10, hours=-15), timedelta(days=200), None),  # active_30d
    (103, None, "business", timedelta(days=45), timedelta(days=300), date(2026, 4, 5)),  # inactive, pending
    (104, None, "enterprise", None, timedelta(days=100), None),  # never active
    (105, (2, "web"), "business", None, timedelta(days=5), None),  # never active, assigned 5 days ago
    (106, (1, "platform"), "business", timedelta(days=30, hours=1), timedelta(days=120), date(2026, 4, 3)),
)
# The older day: 107 held a seat then (never active), and globex had one; globex has none now.
OLDER_SEATS = (
    ("acme", 101, None, "business", timedelta(days=1), timedelta(days=193), None),
    ("acme", 107, None, "business", None, timedelta(days=300), None),
    ("globex", 201, None, "business", None, timedelta(days=300), None),
)


def _seats(conn: duckdb.DuckDBPyConnection) -> None:
    rows = [(SEAT_DAY, "acme", *seat) for seat in SEATS] + [(OLDER_SEAT_DAY, *seat) for seat in OLDER_SEATS]
    for day, org, user_id, team, plan, active_before, created_before, pending in rows:
        start = datetime.combine(day, datetime.min.time(), UTC)
        conn.execute(
            "INSERT INTO snapshots.seats (snapshot_day, org_login, user_id, login, assigning_team_id,"
            " assigning_team_slug, plan_type, created_at, updated_at, pending_cancellation_date, last_activity_at)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                day,
                org,
                user_id,
                f"dev-{user_id}",
                team and team[0],
                team and team[1],
                plan,
                start - created_before,
                start - created_before,
                pending,
                None if active_before is None else start - active_before,
            ],
        )
    totals = [
        (SEAT_DAY, "acme", len(SEATS)),
        (SEAT_DAY, "globex", 0),
        (OLDER_SEAT_DAY, "acme", 2),
        (OLDER_SEAT_DAY, "globex", 1),
    ]
    conn.executemany(
        "INSERT INTO snapshots.seat_totals (snapshot_day, org_login, total_seats) VALUES (?, ?, ?)", totals
    )
