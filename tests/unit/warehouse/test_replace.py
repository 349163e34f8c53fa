import sys
from datetime import UTC, date, datetime
from pathlib import Path

import duckdb
import polars as pl
import pytest

from pipelines.service import ReportRef
from pipelines.warehouse import ReportSlice, land_report, migrate
from pipelines.warehouse.checks import ChecksFailed


def _agents(rows: list[tuple[str, str, date, datetime]]) -> pl.DataFrame:
    return pl.DataFrame(
        {
            "scope": ["organization"] * len(rows),
            "scope_name": ["acme"] * len(rows),
            "level": ["aggregate"] * len(rows),
            "day": [r[2] for r in rows],
            "user_id": [None] * len(rows),
            "user_login": [None] * len(rows),
            "agent_id": [r[0] for r in rows],
            "agent_name": [r[1] for r in rows],
            "agent_job_starts": [5] * len(rows),
            "session_count": [1] * len(rows),
            "fetched_at": [r[3] for r in rows],
        },
        schema_overrides={"user_id": pl.Int64(), "user_login": pl.String(), "fetched_at": pl.Datetime("us", "UTC")},
    )


T1 = datetime(2026, 11, 20, tzinfo=UTC)
T2 = datetime(2026, 11, 21, tzinfo=UTC)


def _key(start: date, end: date) -> ReportSlice:
    return ReportSlice(ReportRef("organization", "acme", "1-day", "aggregate", start), start, end)


def _land(conn, rows, start, end):
    with land_report(conn, _key(start, end)) as landing:
        landing.insert(table="agent_activity", frame=_agents(rows), file_index=0)


def test_migrations_are_applied_once(tmp_path: Path):
    c = duckdb.connect(str(tmp_path / "m.duckdb"))
    first = migrate(c)
    assert "004_create_core_daily_totals.sql" in first
    assert migrate(c) == []
    files = [name for name in first if name.endswith(".sql")]  # the rest: declared fields' columns
    assert c.execute("SELECT count(*) FROM meta.schema_migrations").fetchone()[0] == len(files)


def test_renamed_agent_latest_label_wins_and_history_keeps_both(conn):
    d1, d2 = date(2026, 11, 1), date(2026, 11, 2)
    _land(conn, [("42", "Old Name", d1, T1)], d1, d1)
    _land(conn, [("42", "New Name", d2, T2)], d2, d2)
    assert conn.execute("SELECT agent_name, first_seen_day, last_seen_day FROM core.dim_agent").fetchall() == [
        ("New Name", d1, d2)
    ]
    assert sorted(conn.execute("SELECT agent_name FROM core.agent_names").fetchall()) == [("New Name",), ("Old Name",)]


def test_newest_fetch_of_a_day_replaces_the_older_one(conn):
    d = date(2026, 11, 1)
    _land(conn, [("42", "A", d, T1), ("7", "B", d, T1)], d, d)
    _land(conn, [("42", "A2", d, T2)], d, d)
    assert conn.execute("SELECT agent_id, agent_name FROM core.agent_activity").fetchall() == [("42", "A2")]
    assert conn.execute("SELECT agent_id, agent_name FROM core.dim_agent").fetchall() == [("42", "A2")]


def test_failed_replace_leaves_the_previous_state(conn):
    d = date(2026, 11, 1)
    _land(conn, [("42", "A", d, T1)], d, d)
    # A NULL agent_name breaks a NOT NULL column part-way through the transaction.
    bad = _agents([("9", "x", d, T2)]).with_columns(pl.lit(None, dtype=pl.String()).alias("agent_name"))
    with pytest.raises(duckdb.Error), land_report(conn, _key(d, d)) as landing:
        landing.insert(table="agent_activity", frame=_agents([("42", "B", d, T2)]), file_index=0)
        landing.insert(table="agent_activity", frame=bad, file_index=0)
    assert conn.execute("SELECT agent_id, agent_name FROM core.agent_activity").fetchall() == [("42", "A")]


def _totals(users: list[int], day: date) -> pl.DataFrame:
    return pl.DataFrame(
        {
            "scope": "organization",
            "scope_name": "acme",
            "day": day,
            "report_kind": "1-day",
            "user_id": users,
            "agent_breakdown_present": False,
            "extra": None,
            "_line": range(1, len(users) + 1),  # each row's line in its file, recorded with its key
        },
        schema_overrides={"extra": pl.String(), "_line": pl.Int64()},
    )


def _user_key(d: date) -> ReportSlice:
    return ReportSlice(ReportRef("organization", "acme", "1-day", "user", d), d, d)


def test_discarded_file_takes_back_only_its_own_rows(conn):
    d = date(2026, 11, 1)
    with land_report(conn, _user_key(d)) as landing:
        landing.insert(table="user_daily_totals", frame=_totals([1, 2], d), file_index=0)
        landing.insert(table="user_daily_totals", frame=_totals([3, 4], d), file_index=1)
        landing.discard_file(file_index=1)
        landing.insert(table="user_daily_totals", frame=_totals([3, 4, 5], d), file_index=1)
    assert [r[0] for r in conn.execute("SELECT user_id FROM core.user_daily_totals ORDER BY 1").fetchall()] == [
        1,
        2,
        3,
        4,
        5,
    ]


def test_a_discarded_aggregate_file_takes_back_its_day_and_its_agent_rows(conn):
    """An aggregate file is keyed by its day alone (no user), its agent rows by level and day
    with a NULL user: fetched again, each lands once."""
    d = date(2026, 11, 1)
    day_row = _totals([1], d).drop("user_id")
    with land_report(conn, _key(d, d)) as landing:
        landing.insert(table="daily_totals", frame=day_row, file_index=0)
        landing.insert(table="agent_activity", frame=_agents([("42", "A", d, T1)]), file_index=0)
        landing.discard_file(file_index=0)
        assert conn.execute("SELECT count(*) FROM core.daily_totals").fetchone() == (0,)
        assert conn.execute("SELECT count(*) FROM core.agent_activity").fetchone() == (0,)
        landing.insert(table="daily_totals", frame=day_row, file_index=0)
        landing.insert(table="agent_activity", frame=_agents([("42", "A", d, T1)]), file_index=0)
    assert conn.execute("SELECT count(*) FROM core.daily_totals").fetchone() == (1,)
    assert conn.execute("SELECT count(*) FROM core.agent_activity").fetchone() == (1,)


def test_discarding_a_file_that_shares_a_key_with_another_hands_the_other_line_back_to_land_again(conn):
    """A line the report repeats in files 0 and 1, and file 1 is fetched again (a cut download):
    that refused the whole report. Now the key's rows go and file 0's line is marked to land
    again (ingest/_repeats.py lands it from the archive), whether or not file 1 holds it again."""
    d = date(2026, 11, 1)
    with land_report(conn, _user_key(d)) as landing:
        landing.insert(table="user_daily_totals", frame=_totals([7, 8], d), file_index=0)
        landing.insert(table="user_daily_totals", frame=_totals([8, 9], d), file_index=1)
        landing.discard_file(file_index=1)
        assert conn.execute("SELECT user_id FROM core.user_daily_totals ORDER BY 1").fetchall() == [(7,)]
        assert landing.repeated_keys() == [(d, 8, 0, 2, False, True)]  # file 0 line 2, to land again
        landing.insert(table="user_daily_totals", frame=_totals([8, 9], d), file_index=1)
        assert [row[2:4] for row in landing.repeated_keys()] == [(0, 2), (1, 1)]
        landing.withdraw(pl.DataFrame({"day": [d], "user_id": [8]}))
        landing.insert(table="user_daily_totals", frame=_totals([8], d), file_index=0)
    assert conn.execute("SELECT user_id FROM core.user_daily_totals ORDER BY 1").fetchall() == [(7,), (8,), (9,)]


def test_a_failure_after_the_transaction_ended_is_raised_as_itself(tmp_path):
    # A failed COMMIT (disk full) ends DuckDB's transaction; the ROLLBACK that follows must not
    # replace the real error with "cannot rollback - no transaction is active".
    conn = duckdb.connect(str(tmp_path / "w.duckdb"))
    migrate(conn)
    with (
        pytest.raises(OSError, match="No space left on device"),
        land_report(conn, _key(date(2026, 11, 1), date(2026, 11, 1))),
    ):
        conn.execute("COMMIT")
        raise OSError(28, "No space left on device")
    conn.close()


def test_a_report_failing_a_blocking_check_is_rolled_back_whole(conn):
    d = date(2026, 11, 1)
    _land(conn, [("42", "A", d, T1)], d, d)
    negative = _agents([("42", "A", d, T2), ("7", "B", d, T2)]).with_columns(pl.lit(-1).alias("agent_job_starts"))
    with (
        pytest.raises(
            ChecksFailed,
            match=r"counts_are_non_negative on core.agent_activity found 2 in organization acme aggregate 2026-11-01",
        ),
        land_report(conn, _key(d, d)) as landing,
    ):
        landing.insert(table="agent_activity", frame=negative, file_index=0)
    assert conn.execute("SELECT agent_id, agent_job_starts FROM core.agent_activity").fetchall() == [("42", 5)]
    assert conn.execute("SELECT agent_id FROM core.dim_agent").fetchall() == [("42",)]


def test_checks_of_a_report_look_only_at_its_own_slice(conn):
    d1, d2 = date(2026, 11, 1), date(2026, 11, 2)
    _land(conn, [("42", "A", d1, T1)], d1, d1)
    # A bad row committed by hand on d1 (as an older release could have): landing d2 still works.
    conn.execute("UPDATE core.agent_activity SET agent_job_starts = -5")
    with land_report(conn, _key(d2, d2)) as landing:
        landing.insert(table="agent_activity", frame=_agents([("42", "A", d2, T2)]), file_index=0)
    assert {o.where for o in landing.checks} == {"organization acme aggregate 2026-11-02"}
    assert all(o.passed for o in landing.checks)


def test_agent_days_and_dimensions_follow_each_report(conn):
    d1, d2 = date(2026, 11, 1), date(2026, 11, 2)
    _land(conn, [("42", "Old", d1, T1), ("7", "B", d1, T1)], d1, d1)
    _land(conn, [("42", "New", d2, T2)], d2, d2)
    _land(conn, [("42", "Old", d1, T2)], d1, d1)  # d1 fetched again: agent 7 is gone
    assert conn.execute("SELECT day, agent_id, agent_name FROM core.agent_days ORDER BY day").fetchall() == [
        (d1, "42", "Old"),
        (d2, "42", "New"),
    ]
    assert conn.execute(
        "SELECT agent_id, agent_name, first_seen_day, last_seen_day FROM core.dim_agent"
    ).fetchall() == [("42", "New", d1, d2)]
    assert sorted(conn.execute("SELECT agent_id, agent_name FROM core.agent_names").fetchall()) == [
        ("42", "New"),
        ("42", "Old"),
    ]


def test_views_are_created_again_only_when_their_files_change(conn, monkeypatch):
    conn.execute("DROP VIEW bi.agent_usage_daily")
    assert migrate(conn) == []
    views = {r[0] for r in conn.execute("SELECT view_name FROM duckdb_views() WHERE schema_name = 'bi'").fetchall()}
    assert "agent_usage_daily" not in views, "nothing changed, so nothing was recreated"
    # The package re-exports the function under the module's name: patch the module itself.
    monkeypatch.setattr(sys.modules["pipelines.warehouse.migrate"], "_views_checksum", lambda: "changed")
    migrate(conn)
    views = {r[0] for r in conn.execute("SELECT view_name FROM duckdb_views() WHERE schema_name = 'bi'").fetchall()}
    assert "agent_usage_daily" in views
