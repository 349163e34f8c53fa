from datetime import UTC, date, datetime
from pathlib import Path

import duckdb
import polars as pl

from pipelines.service import ReportRef
from pipelines.warehouse import ReportSlice, land_report
from pipelines.warehouse.lake import publish
from pipelines.warehouse.sql import run_sql

T1 = datetime(2026, 11, 20, tzinfo=UTC)


def _land(conn, day: date, agents: dict[str, int]) -> None:
    frame = pl.DataFrame(
        {
            "scope": "organization", "scope_name": "acme", "level": "aggregate", "day": day,
            "user_id": None, "user_login": None, "agent_id": list(agents), "agent_name": [f"A{a}" for a in agents],
            "agent_job_starts": list(agents.values()), "session_count": 1, "fetched_at": T1,
        },
        schema_overrides={"user_id": pl.Int64(), "user_login": pl.String(), "fetched_at": pl.Datetime("us", "UTC")},
    )
    with land_report(
        conn, ReportSlice(ReportRef("organization", "acme", "1-day", "aggregate", day), day, day)
    ) as landing:
        landing.insert(table="agent_activity", frame=frame, file_index=0)


def _mtimes(lake: Path) -> dict[str, int]:
    return {str(p.relative_to(lake)): p.stat().st_mtime_ns for p in lake.rglob("*.parquet")}


def test_a_publish_rewrites_only_the_partitions_the_run_changed(conn, tmp_path):
    lake, serving = tmp_path / "lake", tmp_path / "serving.duckdb"
    d1, d2 = date(2026, 11, 1), date(2026, 11, 2)
    _land(conn, d1, {"1": 5})
    first = publish(conn, lake=lake, serving=serving)
    assert first.partitions_written >= 1
    before = _mtimes(lake)
    _land(conn, d2, {"1": 7, "2": 3})
    second = publish(conn, lake=lake, serving=serving)
    after = _mtimes(lake)
    old, new = "core.agent_activity/day=2026-11-01/data.parquet", "core.agent_activity/day=2026-11-02/data.parquet"
    assert after[old] == before[old]
    assert new in after
    assert second.partitions_written == 2  # agent_activity and agent_days of 2026-11-02
    with duckdb.connect(str(serving), read_only=True) as bi:
        per_day = bi.execute("SELECT day, sum(agent_job_starts) FROM core.agent_activity GROUP BY day ORDER BY day")
        assert per_day.fetchall() == [(d1, 5), (d2, 10)]
        columns = "SELECT column_name, data_type FROM duckdb_columns() WHERE table_name = 'agent_activity'"
        types = dict(bi.execute(columns).fetchall())
        assert types["day"] == "DATE" and types["fetched_at"] == "TIMESTAMP WITH TIME ZONE"
        empty = bi.execute("SELECT count(*) FROM core.user_daily_totals").fetchone()
        assert empty == (0,), "an empty table is an empty view"
        assert bi.execute("SELECT agent_id FROM core.dim_agent ORDER BY 1").fetchall() == [("1",), ("2",)]


def test_a_reader_holding_the_serving_database_sees_the_next_publish(conn, tmp_path):
    lake, serving = tmp_path / "lake", tmp_path / "serving.duckdb"
    _land(conn, date(2026, 11, 1), {"1": 5})
    publish(conn, lake=lake, serving=serving)
    reader = duckdb.connect(str(serving), read_only=True)
    assert reader.execute("SELECT count(DISTINCT day) FROM core.agent_activity").fetchone() == (1,)
    _land(conn, date(2026, 11, 2), {"1": 7})
    publish(conn, lake=lake, serving=serving)
    assert reader.execute("SELECT count(DISTINCT day) FROM core.agent_activity").fetchone() == (2,)
    reader.close()


def test_a_day_with_no_rows_left_loses_its_partition(conn, tmp_path):
    lake, serving = tmp_path / "lake", tmp_path / "serving.duckdb"
    d = date(2026, 11, 1)
    _land(conn, d, {"1": 5})
    publish(conn, lake=lake, serving=serving)
    _land(conn, d, {})  # fetched again: no agent activity that day
    publish(conn, lake=lake, serving=serving)
    assert not (lake / "core.agent_activity" / "day=2026-11-01").exists()
    with duckdb.connect(str(serving), read_only=True) as bi:
        assert bi.execute("SELECT count(*) FROM core.agent_activity").fetchone() == (0,)


def test_a_reader_held_across_the_publish_that_gives_a_table_its_first_day_sees_that_day(conn, tmp_path):
    lake, serving = tmp_path / "lake", tmp_path / "serving.duckdb"
    publish(conn, lake=lake, serving=serving)  # nothing landed: every partitioned table is empty
    reader = duckdb.connect(str(serving), read_only=True)
    assert reader.execute("SELECT count(*) FROM core.agent_activity").fetchone() == (0,)
    _land(conn, date(2026, 11, 1), {"1": 5, "2": 1})
    publish(conn, lake=lake, serving=serving)
    # The reader still has the serving database it opened: its view must already read the lake's glob.
    assert reader.execute("SELECT day, sum(agent_job_starts) FROM core.agent_activity GROUP BY day").fetchall() == [
        (date(2026, 11, 1), 6)
    ]
    assert reader.execute("SELECT count(*) FROM bi.agent_usage_daily").fetchone() == (2,)
    reader.close()


def test_the_empty_partition_survives_a_full_rewrite_and_reads_as_no_rows(conn, tmp_path):
    lake, serving = tmp_path / "lake", tmp_path / "serving.duckdb"
    d = date(2026, 11, 1)
    _land(conn, d, {"1": 5})
    publish(conn, lake=lake, serving=serving)
    reader = duckdb.connect(str(serving), read_only=True)
    _land(conn, d, {})  # the table's only day loses its rows
    run_sql(conn, "migrations/mark_lake_rewrite.sql")  # as after a migration: every table written again
    publish(conn, lake=lake, serving=serving)
    assert [p.parent.name for p in (lake / "core.agent_activity").glob("*/data.parquet")] == [
        "day=__HIVE_DEFAULT_PARTITION__"
    ]
    # A glob matching no file would be an error here, not an empty answer.
    assert reader.execute("SELECT count(*) FROM core.agent_activity").fetchone() == (0,)
    files = lake / "core.agent_activity" / "**" / "*.parquet"
    assert pl.scan_parquet(files, hive_partitioning=True).collect().height == 0
    reader.close()
