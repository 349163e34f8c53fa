from datetime import UTC, date, datetime

import duckdb

from pipelines.warehouse import migrate

DAY = date(2026, 11, 10)
EARLY = datetime(2026, 11, 12, 6, 0, tzinfo=UTC)  # Nov 10 still filling in
LATE = datetime(2026, 11, 20, 6, 0, tzinfo=UTC)  # Nov 10 long final


def _before_finality(conn: duckdb.DuckDBPyConnection) -> None:
    """Take a migrated warehouse back to how it was before migrations 061 and 062."""
    for table, columns in {
        "core.daily_totals": ("fetched_at", "is_final"),
        "core.user_daily_totals": ("fetched_at", "is_final"),
        "core.breakdowns": ("fetched_at", "is_final"),
        "core.agent_activity": ("is_final",),
        "core.user_team_days": ("is_final",),
    }.items():
        for column in columns:
            conn.execute(f"ALTER TABLE {table} DROP COLUMN {column}")
    conn.execute("DROP TABLE raw.report_fetches")
    conn.execute("DELETE FROM meta.schema_migrations WHERE version IN (61, 62)")


def _report_file(conn: duckdb.DuckDBPyConnection, *, kind: str, level: str, fetched_at: datetime) -> None:
    conn.execute(
        "INSERT INTO raw.report_files (scope, scope_name, report_kind, level, report_start_day, report_end_day,"
        " file_index, bytes, sha256, records, quarantined, archive_path, link, fetched_at)"
        " VALUES ('organization', 'acme', ?, ?, ?, ?, 0, 1, 'x', 1, 0, 'a', 'l', ?)",
        [kind, level, DAY, DAY, fetched_at],
    )


def test_rows_landed_before_finality_take_the_fetch_time_of_their_report_file(conn):
    _before_finality(conn)
    conn.execute(
        "INSERT INTO core.daily_totals (scope, scope_name, day, report_kind, agent_breakdown_present)"
        " VALUES ('organization', 'acme', ?, '1-day', TRUE)",
        [DAY],
    )
    conn.execute(
        "INSERT INTO core.user_daily_totals (scope, scope_name, day, report_kind, user_id, agent_breakdown_present)"
        " VALUES ('organization', 'acme', ?, '1-day', 7, TRUE)",
        [DAY],
    )
    conn.execute(
        "INSERT INTO core.breakdowns (scope, scope_name, level, day, kind) VALUES ('organization', 'acme', 'user', ?,"
        " 'ide')",
        [DAY],
    )
    conn.execute(
        "INSERT INTO core.agent_activity (scope, scope_name, level, day, agent_id, agent_name, fetched_at)"
        " VALUES ('organization', 'acme', 'aggregate', ?, 'a', 'A', ?)",
        [DAY, EARLY],
    )
    _report_file(conn, kind="1-day", level="aggregate", fetched_at=EARLY)
    _report_file(conn, kind="1-day", level="user", fetched_at=LATE)
    # A 28-day report's file of another kind covers the day too: not the one the 1-day rows came from.
    conn.execute(
        "INSERT INTO raw.report_files VALUES ('organization', 'acme', '28-day', 'aggregate', ?, ?, 0, 1, 'x', 1, 0,"
        " 'a', 'l', ?, 0)",
        [date(2026, 10, 20), date(2026, 11, 16), LATE],
    )

    assert migrate(conn) == ["061_add_finality_to_facts.sql", "062_create_raw_report_fetches.sql"]

    assert conn.execute("SELECT fetched_at, is_final FROM core.daily_totals").fetchall() == [(EARLY, False)]
    assert conn.execute("SELECT fetched_at, is_final FROM core.user_daily_totals").fetchall() == [(LATE, True)]
    assert conn.execute("SELECT fetched_at, is_final FROM core.breakdowns").fetchall() == [(LATE, True)]
    assert conn.execute("SELECT is_final FROM core.agent_activity").fetchall() == [(False,)]
    assert conn.execute("SELECT count(*) FROM raw.report_fetches").fetchone() == (0,)
    assert conn.execute("SELECT is_final FROM bi.assistant_activity_daily").fetchall() == [(False,)]
