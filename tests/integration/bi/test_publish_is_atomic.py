"""A publish is atomic for readers: a reader in another process polls the serving database through
one held connection while 50 publishes run, and never sees a mixed state.

Each publish follows a change of the warehouse that gives two days' report rows
(core.daily_totals), user rows (core.user_daily_totals) and agent rows (core.agent_activity) the
publish's generation, marked for the lake as a landing marks them; every fifth adds a day. In
each poll, in one query, the reader asserts that each day shows one generation in all three
tables and that no table's row count went down; after the last publish its next query, on the
same connection, sees the last generation of every day.
"""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import date, timedelta
from pathlib import Path

import duckdb
import pytest

from pipelines.publish.lake import publish
from pipelines.warehouse import migrate, run_sql

PUBLISHES = 50
FIRST_DAY = date(2026, 11, 1)
USERS, AGENTS = 12, 3
# Bounds the reader's loop even if the test never tells it to stop.
MAX_POLLS = 200_000

# Per day: the generations each table shows, and each table's rows.
POLL = """
WITH rows AS (
    SELECT 'report' AS source, day, user_initiated_interaction_count AS generation FROM core.daily_totals
    UNION ALL SELECT 'user', day, user_initiated_interaction_count FROM core.user_daily_totals
    UNION ALL SELECT 'agent', day, agent_job_starts FROM core.agent_activity
)
SELECT CAST(day AS VARCHAR), list(DISTINCT generation ORDER BY generation), list(DISTINCT source ORDER BY source),
       count(*) FILTER (WHERE source = 'report'), count(*) FILTER (WHERE source = 'user'),
       count(*) FILTER (WHERE source = 'agent')
FROM rows GROUP BY day ORDER BY day
"""

READER = r"""
import json, sys, time
from pathlib import Path
import duckdb

serving, stop, poll, max_polls = sys.argv[1], Path(sys.argv[2]), sys.argv[3], int(sys.argv[4])
conn = duckdb.connect(serving, read_only=True)
problems, counts, polls = [], (0, 0, 0), 0

def check(rows):
    global counts
    for day, generations, sources, *_ in rows:
        if len(generations) != 1 or sources != ["agent", "report", "user"]:
            problems.append(f"{day}: generations {generations} in {sources}")
    now = tuple(sum(row[i] for row in rows) for i in (3, 4, 5))
    if any(a < b for a, b in zip(now, counts)):
        problems.append(f"rows (report, user, agent) went down from {counts} to {now}")
    counts = now

print("ready", flush=True)
while polls < max_polls and not stop.exists():
    check(conn.execute(poll).fetchall())
    polls += 1
    time.sleep(0.005)  # leaves the publishing process a share of the two cores
final = conn.execute(poll).fetchall()  # the next query after the last publish, same connection
check(final)
print(json.dumps({"polls": polls, "problems": problems[:10], "final": {row[0]: row[1] for row in final}}))
"""


def _set(conn: duckdb.DuckDBPyConnection, day: date, generation: int) -> None:
    """The day's report, user and agent rows, all of `generation`, marked for the lake."""
    for table in ("daily_totals", "user_daily_totals", "agent_activity"):
        conn.execute(f"DELETE FROM core.{table} WHERE day = $day", {"day": day})
    values = {"day": day, "g": generation}
    conn.execute(
        "INSERT INTO core.daily_totals (scope, scope_name, day, report_kind, agent_breakdown_present, "
        "user_initiated_interaction_count) VALUES ('organization', 'acme', $day, '1-day', true, $g)",
        values,
    )
    conn.execute(
        "INSERT INTO core.user_daily_totals (scope, scope_name, day, report_kind, user_id, agent_breakdown_present, "
        "user_initiated_interaction_count) SELECT 'organization', 'acme', $day, '1-day', u, true, $g "
        f"FROM range({USERS}) AS r(u)",
        values,
    )
    conn.execute(
        "INSERT INTO core.agent_activity (scope, scope_name, level, day, agent_id, agent_name, fetched_at, "
        "agent_job_starts) SELECT 'organization', 'acme', 'aggregate', $day, CAST(a AS VARCHAR), 'A' || a, "
        f"TIMESTAMPTZ '2026-11-20 06:00:00+00', $g FROM range({AGENTS}) AS r(a)",
        values,
    )
    run_sql(
        conn,
        "warehouse/mark_lake_changes.sql",
        tables=["core.daily_totals", "core.user_daily_totals", "core.agent_activity"],
        start_day=day,
        end_day=day,
    )


@pytest.mark.timeout(600)  # 50 publishes on a shared 2-core machine
def test_a_reader_holding_one_connection_never_sees_half_of_any_of_50_publishes(tmp_path: Path) -> None:
    lake, serving, stop = tmp_path / "lake", tmp_path / "serving.duckdb", tmp_path / "stop"
    days = [FIRST_DAY + timedelta(days=n) for n in range(3)]
    expected = {}
    with duckdb.connect(str(tmp_path / "warehouse.duckdb")) as conn:
        migrate(conn)
        for day in days:
            _set(conn, day, 0)
            expected[day.isoformat()] = [0]
        publish(conn, lake=lake, serving=serving)
        reader = subprocess.Popen(
            [sys.executable, "-c", READER, str(serving), str(stop), POLL, str(MAX_POLLS)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            assert reader.stdout is not None and reader.stdout.readline().strip() == "ready"
            for generation in range(1, PUBLISHES + 1):
                if generation % 5 == 0:
                    days.append(days[-1] + timedelta(days=1))
                for day in {days[generation % len(days)], days[-1]}:
                    _set(conn, day, generation)
                    expected[day.isoformat()] = [generation]
                publish(conn, lake=lake, serving=serving)
            stop.touch()
            out, err = reader.communicate(timeout=120)
        finally:
            if reader.poll() is None:
                reader.kill()
    assert reader.returncode == 0, err
    seen = json.loads(out.strip().splitlines()[-1])
    assert seen["problems"] == []
    assert seen["polls"] > PUBLISHES, "the reader polled while the publishes ran"
    assert seen["final"] == expected, "the held connection's next query sees the last publish"
