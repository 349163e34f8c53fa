"""The aggregate tier on reports the emulator served over loopback (an organization and its
enterprise): it names nobody, shows no group under k (a suppressed row says so, its figures
NULL), a team by the members active that day, not its members, and where nothing was suppressed
its figures are the full tier's, per day and per 28-day period. (test_aggregate_tier_differences.py
tries every difference of shown figures on random worlds.) The pseudonymous tier keys each
user by a keyed HMAC of their id, alike in every publish, and names nobody either."""

from __future__ import annotations

import hashlib
import hmac
import json
from datetime import timedelta
from pathlib import Path

import duckdb
import pytest

from pipelines.publish.aggregate import AGGREGATE_TABLES, NESTED, aggregate_serving
from pipelines.publish.lake import publish
from pipelines.publish.pseudonymous import pseudonymous_lake, publish_pseudonymous
from pipelines.service import ReportRef
from pipelines.warehouse.rollups import refresh_rollups
from pipelines.warehouse.sql import run_sql
from tests.integration.bi._landed import landed_warehouse
from tests.integration.ingest.conftest import TODAY

DAYS = [TODAY - timedelta(days=n) for n in (7, 6, 5)]
# Each table's full-tier relation its figures equal, its key, and the count that decides its
# suppression (scope_periods sums the service's days: compared on its own below).
FULL = {
    "scope_daily": ("core.daily_totals", ("scope", "scope_name", "day"), "daily_active_users"),
    "team_daily": ("bi.team_usage_daily", ("scope", "scope_name", "day", "team_id"), "active_users"),
    "agent_daily": ("bi.agent_usage_daily", ("scope", "scope_name", "day", "agent_id"), "agent_users"),
    "scope_periods": (None, ("scope", "scope_name", "period_index"), "monthly_active_users"),
    "team_periods": ("bi.team_usage_periods", ("scope", "scope_name", "period_index", "team_id"), "active_users"),
    "agent_periods": ("bi.agent_usage_periods", ("scope", "scope_name", "period_index", "agent_id"), "agent_users"),
    # Cost: the people behind a figure are no column of it; test_aggregate_tier_cost.py proves them.
    "cost_center_periods": (None, ("scope", "scope_name", "period_index", "cost_center_id"), None),
    "team_periods_cost": (None, ("scope", "scope_name", "period_index", "team_id"), None),
    # bi.assistant_usage_daily's counted sums: test_aggregate_tier_vendors.py proves them, vendors landed.
    "vendor_daily": (None, ("scope", "scope_name", "day", "source"), "active_people"),
    "vendor_periods": (None, ("scope", "scope_name", "period_index", "source"), "active_people"),
}
# Columns that name a row rather than tell a figure.
_NAMING = ("suppressed", "is_final", "team_slug", "agent_name", "period_start", "period_end", "cost_center_name")


@pytest.fixture(scope="module")
def landed(tmp_path_factory: pytest.TempPathFactory) -> duckdb.DuckDBPyConnection:
    refs = [
        ReportRef(scope, name, "1-day", level, day)
        for day in DAYS
        for level in ("aggregate", "user")
        for scope, name in (("organization", "acme"), ("enterprise", "acme-corp"))
    ]
    return landed_warehouse(tmp_path_factory, "aggregate", seed=81, users=150, dialect="service", refs=refs)


def _published(conn: duckdb.DuckDBPyConnection, root: Path, k: int) -> duckdb.DuckDBPyConnection:
    serving = root / "serving.duckdb"
    publish(conn, lake=root / "lake", serving=serving, k=k, full=True)
    return duckdb.connect(str(aggregate_serving(serving)), read_only=True)


def _figures(conn: duckdb.DuckDBPyConnection, name: str) -> list[str]:
    columns = [row[0] for row in conn.execute(f"DESCRIBE aggregate.{name}").fetchall()]
    return [c for c in columns if c not in (*FULL[name][1], *_NAMING)]


def test_every_table_of_the_tier_is_tested() -> None:
    assert set(AGGREGATE_TABLES) == set(FULL)


def test_the_tier_names_nobody(landed, tmp_path):
    people = landed.execute(
        "SELECT DISTINCT CAST(user_id AS VARCHAR), user_login FROM core.user_daily_totals"
    ).fetchall()
    assert people
    with _published(landed, tmp_path, k=5) as tier:
        for name in AGGREGATE_TABLES:
            columns = [row[0] for row in tier.execute(f"DESCRIBE aggregate.{name}").fetchall()]
            assert not [c for c in columns if "user_id" in c or "login" in c]
            values = {
                value
                for column in columns
                for (value,) in tier.execute(
                    f'SELECT DISTINCT CAST("{column}" AS VARCHAR) FROM aggregate.{name}'
                ).fetchall()
            }
            assert not values & {text for person in people for text in person}


@pytest.mark.parametrize("k", [5, 12])
def test_no_group_under_k_and_suppression_is_visible(landed, tmp_path, k):
    with _published(landed, tmp_path, k=k) as tier:
        for name, (_, _, count) in FULL.items():
            figures = _figures(tier, name)
            if count is not None:
                shown_under_k = tier.execute(
                    f"SELECT count(*) FROM aggregate.{name} WHERE NOT suppressed AND ({count} < ? OR {count} IS NULL)",
                    [k],
                ).fetchone()[0]
                assert shown_under_k == 0
            leaked = " OR ".join(f'"{f}" IS NOT NULL' for f in figures)
            leaking = f"SELECT count(*) FROM aggregate.{name} WHERE suppressed AND ({leaked})"
            assert tier.execute(leaking).fetchone() == (0,)
        suppressed = tier.execute("SELECT count(*) FROM aggregate.agent_daily WHERE suppressed").fetchone()[0]
    assert suppressed > 0, "the emulator's data has agents used by fewer than k people"


def test_a_team_is_shown_by_its_members_active_that_day_not_its_members(landed, tmp_path):
    # The emulator's enterprise-pilot has 8 members, all in the day's report, and 0-2 of them
    # active: a shown row would be one or two people's figures (issue 42, break 4).
    few = landed.execute(
        "SELECT scope, scope_name, day, team_id FROM bi.team_usage_daily"
        " WHERE reported_users >= 5 AND active_users BETWEEN 1 AND 4 ORDER BY ALL"
    ).fetchall()
    assert few, "the emulator's data has teams of 5 or more members with fewer than 5 active"
    with _published(landed, tmp_path, k=5) as tier:
        shown = tier.execute(
            "SELECT scope, scope_name, day, team_id, active_users FROM aggregate.team_daily WHERE NOT suppressed"
        ).fetchall()
        pilot = tier.execute(
            "SELECT DISTINCT suppressed FROM aggregate.team_daily WHERE team_slug = 'enterprise-pilot'"
        ).fetchall()
    assert not [row for row in shown if row[:4] in set(few)]
    assert min(row[4] for row in shown) >= 5
    assert pilot == [(True,)]


@pytest.fixture(scope="module")
def small_labs(tmp_path_factory: pytest.TempPathFactory) -> duckdb.DuckDBPyConnection:
    """An organization of 8 users whose enterprise adds a second organization of 4, whose reports
    are not fetched: enterprise minus organization is those 4 people's figures."""
    refs = [
        ReportRef(scope, name, "1-day", level, day)
        for day in DAYS
        for level in ("aggregate", "user")
        for scope, name in (("organization", "acme"), ("enterprise", "acme-corp"))
    ]
    return landed_warehouse(tmp_path_factory, "small-labs", seed=81, users=8, dialect="service", refs=refs)


def test_an_enterprise_minus_its_organization_is_never_fewer_than_k_people(small_labs, tmp_path):
    # 2026-11-13: the enterprise 5 active users, the organization 4 of them (k = 3: both shown by
    # their own counts), so enterprise minus organization was one person's figures.
    k = 3
    few = small_labs.execute(
        "SELECT count(*) FROM core.daily_totals AS e JOIN core.daily_totals AS o USING (day)"
        " WHERE e.scope = 'enterprise' AND o.scope = 'organization' AND o.daily_active_users >= ?"
        " AND e.daily_active_users - o.daily_active_users BETWEEN 1 AND ? - 1",
        [k, k],
    ).fetchone()[0]
    assert few, "the enterprise has days with 1..k-1 active users beside the organization's"
    with _published(small_labs, tmp_path, k=k) as tier:
        gaps = tier.execute(
            "SELECT e.day, e.daily_active_users - o.daily_active_users, e.weekly_active_users - o.weekly_active_users"
            " FROM aggregate.scope_daily AS e JOIN aggregate.scope_daily AS o USING (day)"
            " WHERE e.scope = 'enterprise' AND o.scope = 'organization' AND NOT e.suppressed AND NOT o.suppressed"
        ).fetchall()
    assert not [gap for gap in gaps if any(1 <= g < k for g in gap[1:] if g is not None)]


def _team_shown(tier: duckdb.DuckDBPyConnection, day: object, team_id: int) -> bool:
    return tier.execute(
        "SELECT NOT suppressed FROM aggregate.team_daily WHERE day = ? AND team_id = ?", [day, team_id]
    ).fetchone() == (True,)


def test_a_team_within_another_is_hidden_when_a_publish_lands_it_and_other_days_are_not_worked_out_again(
    landed, tmp_path
):
    # A shown team-day with more than k active members, a small part of its scope's; a new team of
    # the same day with all of them but one: the two rows' difference would be one person's figures.
    k, day = 5, DAYS[0]
    serving = tmp_path / "serving.duckdb"
    publish(landed, lake=tmp_path / "lake", serving=serving, k=k, full=True)
    with duckdb.connect(str(aggregate_serving(serving)), read_only=True) as tier:
        scope, name, team_id = tier.execute(
            "SELECT scope, scope_name, team_id FROM aggregate.team_daily WHERE day = ? AND active_users >= ? + 1"
            " ORDER BY active_users, team_id LIMIT 1",
            [day, k],
        ).fetchone()
    before = json.loads((tmp_path / NESTED / "_sources.json").read_text())["days"]
    # The teams hidden where teams add up to a scope or a team: worked out again for that day only.
    covered_before = json.loads((tmp_path / NESTED / "uncovered" / "_sources.json").read_text())["days"]

    def landed_again() -> None:
        refresh_rollups(landed, scope=scope, scope_name=name, start_day=day, end_day=day)
        run_sql(landed, "warehouse/mark_lake_changes.sql", tables=["core.user_team_days"], start_day=day, end_day=day)

    landed.execute(
        "INSERT INTO core.user_team_days BY NAME"
        " SELECT t.* REPLACE (999 AS team_id, 'nearly' AS slug) FROM core.user_team_days AS t"
        " WHERE t.scope = $scope AND t.scope_name = $name AND t.day = $day AND t.team_id = $team"
        " AND t.user_id <> (SELECT min(u.user_id) FROM core.user_daily_totals AS u JOIN core.user_team_days AS m"
        "   USING (scope, scope_name, day, user_id) WHERE m.scope = $scope AND m.scope_name = $name"
        "   AND m.day = $day AND m.team_id = $team AND u.user_initiated_interaction_count > 0)",
        {"scope": scope, "name": name, "day": day, "team": team_id},
    )
    try:
        landed_again()
        publish(landed, lake=tmp_path / "lake", serving=serving, k=k)
        with duckdb.connect(str(aggregate_serving(serving)), read_only=True) as tier:
            assert _team_shown(tier, day, team_id) and not _team_shown(tier, day, 999)
        after = json.loads((tmp_path / NESTED / "_sources.json").read_text())["days"]
        assert [d for d in before if before[d] != after[d]] == [str(day)]
        covered_after = json.loads((tmp_path / NESTED / "uncovered" / "_sources.json").read_text())["days"]
        assert [d for d in covered_before if covered_before[d] != covered_after.get(d)] == [str(day)]
    finally:
        landed.execute("DELETE FROM core.user_team_days WHERE team_id = 999")
        landed_again()


def test_figures_equal_the_full_tier_where_nothing_was_suppressed(landed, tmp_path):
    # k = 2: the emulator's agents have a few users a day each, and every table shows some rows.
    with _published(landed, tmp_path, k=2) as tier:
        for name, (full, key, _) in FULL.items():
            if full is None:
                continue
            figures = _figures(tier, name)
            shown = tier.execute(
                f"SELECT {', '.join(key + tuple(figures))} FROM aggregate.{name} WHERE NOT suppressed ORDER BY ALL"
            ).fetchall()
            assert shown, f"aggregate.{name} shows some rows"
            keys = {row[: len(key)] for row in shown}
            expected = [
                row
                for row in landed.execute(
                    f"SELECT {', '.join(key + tuple(figures))} FROM {full} ORDER BY ALL"
                ).fetchall()
                if row[: len(key)] in keys
            ]
            assert shown == expected
        totals = tier.execute(
            "SELECT sum(user_initiated_interaction_count) FROM aggregate.scope_daily WHERE NOT suppressed"
        ).fetchone()[0]
        periods = tier.execute(
            "SELECT scope, scope_name, period_start, period_end, report_days, user_initiated_interaction_count,"
            " loc_added_sum FROM aggregate.scope_periods WHERE NOT suppressed ORDER BY ALL"
        ).fetchall()
    assert totals == landed.execute("SELECT sum(user_initiated_interaction_count) FROM core.daily_totals").fetchone()[0]
    assert periods, "aggregate.scope_periods shows some rows"
    for scope, scope_name, start, end, *figures in periods:
        assert figures == list(
            landed.execute(
                "SELECT count(*), sum(user_initiated_interaction_count), sum(loc_added_sum) FROM core.daily_totals"
                " WHERE scope = ? AND scope_name = ? AND day BETWEEN ? AND ?",
                [scope, scope_name, start, end],
            ).fetchone()
        )


def test_the_pseudonymous_tier_keys_each_user_alike_in_every_publish_and_names_nobody(landed, tmp_path):
    key = "a-pseudonym-key-of-some-length"
    serving = tmp_path / "serving.duckdb"
    people = landed.execute("SELECT DISTINCT user_id, user_login FROM core.user_daily_totals").fetchall()
    rows = landed.execute(
        "SELECT scope, scope_name, day, user_id, user_initiated_interaction_count FROM core.user_daily_totals"
    ).fetchall()
    expected = sorted(
        (scope, name, day, hmac.new(key.encode(), f"pseudonym:{user_id}".encode(), hashlib.sha256).hexdigest(), n)
        for scope, name, day, user_id, n in rows
    )

    publish(landed, lake=tmp_path / "lake", serving=serving, full=True)
    published = []
    for _ in range(2):
        database = publish_pseudonymous(landed, serving=serving, key=key)
        with duckdb.connect(str(database), read_only=True) as tier:
            columns = [row[0] for row in tier.execute("DESCRIBE pseudonymous.user_daily").fetchall()]
            published.append(
                sorted(
                    tier.execute(
                        "SELECT scope, scope_name, day, pseudonym, user_initiated_interaction_count"
                        " FROM pseudonymous.user_daily"
                    ).fetchall()
                )
            )
            values = {
                value
                for column in columns
                for (value,) in tier.execute(
                    f'SELECT DISTINCT CAST("{column}" AS VARCHAR) FROM pseudonymous.user_daily'
                ).fetchall()
            }
        assert not [c for c in columns if "user_id" in c or "login" in c]
        assert not values & {str(text) for person in people for text in person}
    assert published[0] == published[1] == expected
    # The key is in no file the tier wrote.
    files = [path for path in (tmp_path / "pseudonymous").rglob("*") if path.is_file()]
    assert files and not [path for path in files if key.encode() in path.read_bytes()]


def _day_files(serving: Path) -> dict[str, int]:
    root = pseudonymous_lake(serving) / "user_daily"
    return {path.parent.name: path.stat().st_mtime_ns for path in root.glob("*/data.parquet")}


def test_a_publish_writes_only_the_pseudonymous_days_whose_lake_file_changed(landed, tmp_path):
    key = "another-pseudonym-key"
    serving, lake = tmp_path / "serving.duckdb", tmp_path / "lake"
    publish(landed, lake=lake, serving=serving, full=True)
    publish_pseudonymous(landed, serving=serving, key=key)
    first = _day_files(serving)
    assert {f"day={day}" for day in DAYS} <= first.keys()

    # Nothing changed: nothing written. One day landed again: that day alone.
    publish(landed, lake=lake, serving=serving)
    publish_pseudonymous(landed, serving=serving, key=key)
    assert _day_files(serving) == first
    run_sql(
        landed, "warehouse/mark_lake_changes.sql", tables=["core.user_daily_totals"], start_day=DAYS[0], end_day=DAYS[0]
    )
    publish(landed, lake=lake, serving=serving)
    publish_pseudonymous(landed, serving=serving, key=key)
    second = _day_files(serving)
    assert [day for day in first if second[day] != first[day]] == [f"day={DAYS[0]}"]

    # Another key: every day again, with other pseudonyms.
    publish_pseudonymous(landed, serving=serving, key=key + "-rotated")
    assert not [day for day in first if _day_files(serving)[day] == second[day]]

    # A day the warehouse no longer has (retention) leaves the tier with the lake.
    landed.execute("CREATE TEMP TABLE kept AS SELECT * FROM core.user_daily_totals WHERE day = ?", [DAYS[0]])
    try:
        landed.execute("DELETE FROM core.user_daily_totals WHERE day = ?", [DAYS[0]])
        run_sql(
            landed,
            "warehouse/mark_lake_changes.sql",
            tables=["core.user_daily_totals"],
            start_day=DAYS[0],
            end_day=DAYS[0],
        )
        publish(landed, lake=lake, serving=serving)
        database = publish_pseudonymous(landed, serving=serving, key=key)
        assert f"day={DAYS[0]}" not in _day_files(serving)
        with duckdb.connect(str(database), read_only=True) as tier:
            days = {day for (day,) in tier.execute("SELECT DISTINCT day FROM pseudonymous.user_daily").fetchall()}
        assert days == set(DAYS[1:])
    finally:
        landed.execute("INSERT INTO core.user_daily_totals SELECT * FROM kept")
        landed.execute("DROP TABLE kept")
        run_sql(
            landed,
            "warehouse/mark_lake_changes.sql",
            tables=["core.user_daily_totals"],
            start_day=DAYS[0],
            end_day=DAYS[0],
        )


def test_a_reader_holding_the_aggregate_tier_reads_the_newest_publish_whole(landed, tmp_path):
    serving, lake = tmp_path / "serving.duckdb", tmp_path / "lake"
    publish(landed, lake=lake, serving=serving, k=1, full=True)
    with duckdb.connect(str(aggregate_serving(serving)), read_only=True) as held:

        def suppressed() -> set[bool]:
            # One query over every table: they must come from one publish.
            union = " UNION ALL ".join(f"SELECT suppressed FROM aggregate.{name}" for name in AGGREGATE_TABLES)
            return {value for (value,) in held.execute(f"SELECT DISTINCT suppressed FROM ({union})").fetchall()}

        assert False in suppressed()
        # A k no group reaches: every row of every table suppressed, read through the same connection.
        publish(landed, lake=lake, serving=serving, k=10**9)
        assert suppressed() == {True}
    tier = aggregate_serving(serving).parent / "lake"
    assert len(list(tier.glob("publish=*/_published"))) == 2 and (tier / "current").is_symlink()


def _disjoint_differences(whole: frozenset[int], parts: list[frozenset[int]], k: int) -> list[int]:
    """The sizes 1..k-1 of what `whole` minus any set of `parts` that do not overlap leaves."""
    found: list[int] = []
    seen: set[frozenset[int]] = set()

    def grow(taken: frozenset[int], start: int) -> None:
        for n in range(start, len(parts)):
            if parts[n] & taken or taken | parts[n] in seen:
                continue
            seen.add(taken | parts[n])
            if 0 < len(whole - taken - parts[n]) < k:
                found.append(len(whole - taken - parts[n]))
            grow(taken | parts[n], n + 1)

    grow(frozenset(), 0)
    return found


@pytest.mark.parametrize("k", [2, 3, 4, 5])
def test_on_the_emulators_reports_no_scope_or_team_minus_shown_teams_within_it_leaves_1_to_k_minus_1_people(
    landed, tmp_path, k
):
    # Who is behind each figure, from the full tier's user rows and memberships: a scope-day's
    # active users, a team-day's active members (its shown active_users must be their number).
    active = landed.execute(
        "SELECT scope, scope_name, day, list(user_id) FROM core.user_daily_totals WHERE report_kind = '1-day'"
        " AND (coalesce(user_initiated_interaction_count, 0) > 0 OR coalesce(code_generation_activity_count, 0) > 0"
        " OR coalesce(used_agent, FALSE) OR coalesce(used_chat, FALSE) OR coalesce(used_cli, FALSE)) GROUP BY ALL"
    ).fetchall()
    scopes = {(s, n, d): frozenset(users) for s, n, d, users in active}
    members = landed.execute(
        "SELECT scope, scope_name, day, team_id, list(user_id) FROM core.user_team_days GROUP BY ALL"
    ).fetchall()
    with _published(landed, tmp_path / str(k), k=k) as tier:
        shown = tier.execute(
            "SELECT scope, scope_name, day, team_id, active_users FROM aggregate.team_daily WHERE NOT suppressed"
        ).fetchall()
    teams = {(s, n, d, t): frozenset(users) & scopes.get((s, n, d), frozenset()) for s, n, d, t, users in members}
    assert all(len(teams[row[:4]]) == row[4] for row in shown)
    assert shown, "the emulator's teams have days of k or more active members"
    found = []
    for day in {row[2] for row in shown}:
        parts = [teams[row[:4]] for row in shown if row[2] == day]
        containers = [people for (_, _, d), people in scopes.items() if d == day] + parts
        for whole in containers:
            within = sorted({p for p in parts if p < whole}, key=sorted)
            found += [(day, len(whole), left) for left in _disjoint_differences(whole, within, k)]
    assert not found
