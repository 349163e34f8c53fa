from datetime import date, datetime, timezone
from pathlib import Path

import duckdb
import polars as pl

from pipelines.service import ReportRef
from pipelines.warehouse import ReportSlice, land_report
from pipelines.warehouse.lake import publish

T1 = datetime(2026, 11, 20, tzinfo=timezone.utc)


def _land(conn, day: date, agents: dict[str, int]) -> None:
    frame = pl.DataFrame(
        {
            "scope": "organization", "scope_name": "acme", "level": "aggregate", "day": day,
            "user_id": None, "user_login": None, "agent_id": list(agents), "agent_name": [f"A{a}" for a in agents],
            "agent_job_starts": list(agents.values()), "session_count": 1, "fetched_at": T1,
        },
        schema_overrides={"user_id": pl.Int64(), "user_login": pl.String(), "fetched_at": pl.Datetime("us", "UTC")},
    )
    with land_report(conn, ReportSlice(ReportRef("organization", "acme", "1-day", "aggregate", day), day, day)) as landing:
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
    assert after["core.agent_activity/day=2026-11-01/data.parquet"] == before["core.agent_activity/day=2026-11-01/data.parquet"]
    assert "core.agent_activity/day=2026-11-02/data.parquet" in after
    assert second.partitions_written == 2  # agent_activity and agent_days of 2026-11-02
    with duckdb.connect(str(serving), read_only=True) as bi:
        assert bi.execute("SELECT day, sum(agent_job_starts) FROM core.agent_activity GROUP BY day ORDER BY day").fetchall() == [
            (d1, 5), (d2, 10)
        ]
        types = dict(bi.execute("SELECT column_name, data_type FROM duckdb_columns() WHERE table_name = 'agent_activity'").fetchall())
        assert types["day"] == "DATE" and types["fetched_at"] == "TIMESTAMP WITH TIME ZONE"
        assert bi.execute("SELECT count(*) FROM core.user_daily_totals").fetchone() == (0,), "an empty table is an empty view"
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
