"""A landing's memory limit bounds its batches, not the end of its transaction.

The rollups at the end of a landing replace rows of tables with a primary key, and DuckDB keeps
the transaction's index entries pinned until the COMMIT merges them into the tables' indexes: a
week of a 10,000-user organization failed to commit under the landing's limit ("Failed to commit:
could not allocate block of size 256.0 KiB"). The same, small: a 10 MiB limit holds a thousand
users' batches in 200 teams, but not their end of landing.
"""

from __future__ import annotations

from datetime import date

import duckdb
import polars as pl

from pipelines.service import ReportRef
from pipelines.warehouse import ReportSlice, land_report

_DAY = date(2026, 11, 1)
_USERS = 1_000
_BATCH = 500  # rows per insert, as the ingest lands a file in batches
_TEAMS = 200
# The batches fit in it and so do the indexes once committed, but not the transaction's index
# entries at the end of the landing (measured: 9-11 MiB fail to commit without the raised limit).
_LIMIT = "10MiB"


def _totals(first: int, count: int) -> pl.DataFrame:
    return pl.DataFrame(
        {
            "scope": "organization",
            "scope_name": "acme",
            "day": _DAY,
            "report_kind": "1-day",
            "user_id": range(first, first + count),
            "agent_breakdown_present": False,
            "extra": None,
            "_line": range(first, first + count),
        },
        schema_overrides={"user_id": pl.Int64(), "extra": pl.String(), "_line": pl.Int64()},
    )


def _limit(conn: duckdb.DuckDBPyConnection) -> str:
    ((limit,),) = conn.execute("SELECT current_setting('memory_limit')").fetchall()
    return str(limit)


def test_a_landing_whose_commit_needs_more_than_the_landing_limit_commits_and_gives_the_limit_back(
    conn: duckdb.DuckDBPyConnection,
) -> None:
    # The day's team memberships, landed before: the team rollups have rows to replace.
    conn.execute(
        "INSERT INTO core.user_team_days SELECT 'organization', 'acme', $day, u, 'dev-' || u, NULL, u % $teams,"
        " 'team-' || (u % $teams), TIMESTAMPTZ '2026-11-02 00:00:00+00', true FROM range(1, $users + 1) AS r(u)",
        {"day": _DAY, "teams": _TEAMS, "users": _USERS},
    )
    conn.execute("SET threads = 1")  # the landing's (sql/ingest/limit_resources.sql)
    conn.execute(f"SET memory_limit = '{_LIMIT}'")
    before = _limit(conn)
    report = ReportSlice(ReportRef("organization", "acme", "1-day", "user", _DAY), _DAY, _DAY)
    with land_report(conn, report) as landing:
        for first in range(1, _USERS + 1, _BATCH):
            landing.insert(table="user_daily_totals", frame=_totals(first, _BATCH), file_index=0)
    assert conn.execute("SELECT count(*) FROM core.user_daily_totals").fetchall() == [(_USERS,)]
    assert conn.execute("SELECT count(*) FROM core.user_report_days").fetchall() == [(1,)]
    assert _limit(conn) == before
