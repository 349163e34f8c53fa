import os
import shutil
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import duckdb
import polars as pl
import pytest

from pipelines.publish._versions import ClockSetBack, make_visible, start
from pipelines.publish.lake import CURRENT, PublishResult, publish
from pipelines.service import ReportRef
from pipelines.warehouse import ReportSlice, land_report
from pipelines.warehouse.sql import run_sql

T1 = datetime(2026, 11, 20, tzinfo=UTC)


def _land(conn, day: date, agents: dict[str, int]) -> None:
    frame = pl.DataFrame(
        {
            "scope": "organization",
            "scope_name": "acme",
            "level": "aggregate",
            "day": day,
            "user_id": None,
            "user_login": None,
            "agent_id": list(agents),
            "agent_name": [f"A{a}" for a in agents],
            "agent_job_starts": list(agents.values()),
            "session_count": 1,
            "fetched_at": T1,
        },
        schema_overrides={"user_id": pl.Int64(), "user_login": pl.String(), "fetched_at": pl.Datetime("us", "UTC")},
    )
    with land_report(
        conn, ReportSlice(ReportRef("organization", "acme", "1-day", "aggregate", day), day, day)
    ) as landing:
        landing.insert(table="agent_activity", frame=frame, file_index=0)


def _mtimes(lake: Path) -> dict[str, int]:
    """The newest version's files (through `current`) and their modification times."""
    newest = lake / CURRENT
    return {str(p.relative_to(newest)): p.stat().st_mtime_ns for p in newest.rglob("*.parquet")}


def _versions(lake: Path) -> list[str]:
    return sorted(p.name for p in lake.glob("publish=*"))


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
    assert not (lake / CURRENT / "core.agent_activity" / "day=2026-11-01").exists()
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
    assert [p.parent.name for p in (lake / CURRENT / "core.agent_activity").glob("*/data.parquet")] == [
        "day=__HIVE_DEFAULT_PARTITION__"
    ]
    # A glob matching no file would be an error here, not an empty answer.
    assert reader.execute("SELECT count(*) FROM core.agent_activity").fetchone() == (0,)
    files = lake / CURRENT / "core.agent_activity" / "**" / "*.parquet"
    assert pl.scan_parquet(files, hive_partitioning=True).collect().height == 0
    reader.close()


def _days_served(serving: Path) -> list[tuple[date, int]]:
    with duckdb.connect(str(serving), read_only=True) as bi:
        return bi.execute(
            "SELECT day, sum(agent_job_starts) FROM core.agent_activity GROUP BY day ORDER BY day"
        ).fetchall()


def test_a_restored_warehouse_is_published_as_it_is_not_as_the_lake_was(conn, tmp_path):
    lake, serving = tmp_path / "lake", tmp_path / "serving.duckdb"
    d1, d2, d3 = date(2026, 11, 1), date(2026, 11, 2), date(2026, 11, 3)
    _land(conn, d1, {"1": 5})
    publish(conn, lake=lake, serving=serving)
    conn.execute("CHECKPOINT")
    backup = tmp_path / "backup.duckdb"
    backup.write_bytes((tmp_path / "w.duckdb").read_bytes())
    _land(conn, d1, {"1": 6})  # a later fetch changed day 1
    _land(conn, d2, {"1": 7})
    publish(conn, lake=lake, serving=serving)
    assert _days_served(serving) == [(d1, 6), (d2, 7)]
    with duckdb.connect(str(backup)) as restored:  # the backup copied back, then one more day
        _land(restored, d3, {"1": 9})
        result = publish(restored, lake=lake, serving=serving)
    assert _days_served(serving) == [(d1, 5), (d3, 9)]
    assert "core.agent_activity/day=2026-11-02/data.parquet" in result.repaired
    assert "core.agent_activity/day=2026-11-01/data.parquet" in result.repaired
    (line,) = result.warnings()
    assert "\n" not in line and "restored or replaced" in line


def test_a_damaged_partition_is_written_again_by_the_next_publish(conn, tmp_path):
    lake, serving = tmp_path / "lake", tmp_path / "serving.duckdb"
    d1, d2 = date(2026, 11, 1), date(2026, 11, 2)
    _land(conn, d1, {"1": 5, "2": 1})
    _land(conn, d2, {"1": 7})
    publish(conn, lake=lake, serving=serving)
    damaged = (lake / CURRENT).resolve() / "core.agent_activity" / "day=2026-11-01" / "data.parquet"
    damaged.write_bytes(b"not parquet any more")  # in place: every version linking it is damaged alike
    empty = lake / CURRENT / "core.agent_activity" / "day=__HIVE_DEFAULT_PARTITION__" / "data.parquet"
    empty.write_bytes(b"PAR1 torn")
    result = publish(conn, lake=lake, serving=serving)  # nothing changed in the warehouse
    assert set(result.repaired) == {
        "core.agent_activity/day=2026-11-01/data.parquet",
        "core.agent_activity/day=__HIVE_DEFAULT_PARTITION__/data.parquet",
    }
    assert _days_served(serving) == [(d1, 6), (d2, 7)]
    # Written anew, not linked to the damaged file.
    assert (lake / CURRENT / "core.agent_activity" / "day=2026-11-01" / "data.parquet").stat().st_ino != (
        damaged.stat().st_ino
    )
    assert publish(conn, lake=lake, serving=serving).repaired == ()


def test_a_partition_the_warehouse_never_published_is_removed(conn, tmp_path):
    lake, serving = tmp_path / "lake", tmp_path / "serving.duckdb"
    _land(conn, date(2026, 11, 1), {"1": 5})
    publish(conn, lake=lake, serving=serving)
    foreign = lake / CURRENT / "core.agent_activity" / "day=2026-10-01"
    foreign.mkdir()
    shutil.copy2(lake / CURRENT / "core.agent_activity" / "day=2026-11-01" / "data.parquet", foreign / "data.parquet")
    result = publish(conn, lake=lake, serving=serving)
    assert result.repaired == ("core.agent_activity/day=2026-10-01/data.parquet",)
    assert not (lake / CURRENT / "core.agent_activity" / "day=2026-10-01").exists()
    assert _days_served(serving) == [(date(2026, 11, 1), 5)]


def test_full_writes_every_partition_again_without_a_warning(conn, tmp_path):
    lake, serving = tmp_path / "lake", tmp_path / "serving.duckdb"
    _land(conn, date(2026, 11, 1), {"1": 5})
    _land(conn, date(2026, 11, 2), {"1": 5})
    publish(conn, lake=lake, serving=serving)
    before = _mtimes(lake)
    result = publish(conn, lake=lake, serving=serving, full=True)
    after = _mtimes(lake)
    dated = [path for path in before if "=2026" in path]  # day partitions, and the small tables' months
    assert result.partitions_written == len(dated) and result.repaired == () and result.warnings() == ()
    assert any("month=2026-11-01" in path for path in dated) and all(after[path] != before[path] for path in dated)


def test_a_publish_links_the_partitions_it_did_not_change_and_writes_the_changed_ones(conn, tmp_path):
    lake, serving = tmp_path / "lake", tmp_path / "serving.duckdb"
    _land(conn, date(2026, 11, 1), {"1": 5})
    _land(conn, date(2026, 11, 2), {"1": 7})
    publish(conn, lake=lake, serving=serving)
    first = (lake / CURRENT).resolve()
    _land(conn, date(2026, 11, 2), {"1": 8})  # fetched again
    result = publish(conn, lake=lake, serving=serving)
    second = (lake / CURRENT).resolve()
    assert first != second and result.version == second
    assert os.readlink(lake / CURRENT) == second.name, "`current` is relative: the lake can move"

    def inode(version: Path, day: str) -> int:
        return (version / "core.agent_activity" / f"day={day}" / "data.parquet").stat().st_ino

    assert inode(second, "2026-11-01") == inode(first, "2026-11-01")
    assert inode(second, "2026-11-02") != inode(first, "2026-11-02")
    assert result.partitions_written == 2  # agent_activity of 2026-11-02, agent_days' month (a small table)
    assert result.partitions_linked == 1  # agent_activity of 2026-11-01
    assert _days_served(serving) == [(date(2026, 11, 1), 5), (date(2026, 11, 2), 8)]


def test_a_superseded_version_stays_for_the_grace_period_and_the_newest_always(conn, tmp_path):
    lake, serving = tmp_path / "lake", tmp_path / "serving.duckdb"
    _land(conn, date(2026, 11, 1), {"1": 5})
    publish(conn, lake=lake, serving=serving)
    publish(conn, lake=lake, serving=serving)
    assert len(_versions(lake)) == 2, "superseded a moment ago: a query may still read it"
    publish(conn, lake=lake, serving=serving, grace=timedelta(0))
    assert _versions(lake) == [(lake / CURRENT).resolve().name]
    # What a publish killed midway leaves: its version half built, its next `current`.
    (lake / ".publishing-99999" / "core.dim_agent").mkdir(parents=True)
    (lake / ".current.99999").symlink_to(".publishing-99999")
    publish(conn, lake=lake, serving=serving, grace=timedelta(0))
    assert len(_versions(lake)) == 1
    assert sorted(p.name for p in lake.iterdir()) == [CURRENT, *_versions(lake)], "nothing else left behind"
    assert _days_served(serving) == [(date(2026, 11, 1), 5)]


def test_the_newest_version_sorts_first_so_a_new_column_reads_while_the_old_version_stays(conn, tmp_path):
    lake, serving = tmp_path / "lake", tmp_path / "serving.duckdb"
    _land(conn, date(2026, 11, 1), {"1": 5})
    _land(conn, date(2026, 11, 2), {"1": 7})
    publish(conn, lake=lake, serving=serving)
    # As a migration that declares a column does: DuckDB takes a glob's columns from its first file.
    conn.execute("ALTER TABLE core.agent_activity ADD COLUMN surface VARCHAR DEFAULT 'cli'")
    run_sql(conn, "migrations/mark_lake_rewrite.sql")
    publish(conn, lake=lake, serving=serving)
    assert len(_versions(lake)) == 2
    with duckdb.connect(str(serving), read_only=True) as bi:
        assert bi.execute("SELECT DISTINCT surface FROM core.agent_activity").fetchall() == [("cli",)]


def test_a_reader_never_opens_a_file_of_another_version(conn, tmp_path):
    lake, serving = tmp_path / "lake", tmp_path / "serving.duckdb"
    _land(conn, date(2026, 11, 1), {"1": 5})
    publish(conn, lake=lake, serving=serving)
    old = (lake / CURRENT).resolve()
    _land(conn, date(2026, 11, 1), {"1": 6})
    publish(conn, lake=lake, serving=serving)
    # The superseded version's own files (not linked into the newest), made unreadable. (Of a
    # table without rows, DuckDB 2.0 opens the zero-row file of every version: those are whole.)
    for table in ("core.agent_activity", "core.agent_days", "core.dim_agent", "core.agent_names"):
        for path in (old / table).rglob("data.parquet"):
            if path.parent.name == "day=2026-11-01" or path.parent == old / table:
                path.write_bytes(b"not parquet")
    with duckdb.connect(str(serving), read_only=True) as bi:
        views = [
            name
            for (name,) in bi.execute(
                "SELECT schema_name || '.' || view_name FROM duckdb_views() WHERE NOT internal"
            ).fetchall()
        ]
        assert len(views) > 40
        for view in views:
            bi.execute(f"SELECT * FROM {view}").fetchall()
    assert _days_served(serving) == [(date(2026, 11, 1), 6)]


def test_a_lake_published_before_versions_is_upgraded_by_the_next_publish(conn, tmp_path):
    lake, serving = tmp_path / "lake", tmp_path / "serving.duckdb"
    _land(conn, date(2026, 11, 1), {"1": 5})
    publish(conn, lake=lake, serving=serving)
    # The layout before versions: each table's directory straight under the lake.
    for table in (lake / CURRENT).resolve().iterdir():
        if table.is_dir():
            shutil.copytree(table, lake / table.name)
    shutil.rmtree((lake / CURRENT).resolve())
    (lake / CURRENT).unlink()
    old_reader = duckdb.connect()
    old_reader.execute(f"CREATE VIEW a AS SELECT * FROM read_parquet('{lake}/core.agent_activity/*/data.parquet')")
    _land(conn, date(2026, 11, 2), {"1": 7})
    publish(conn, lake=lake, serving=serving)
    assert len(_versions(lake)) == 1 and _days_served(serving) == [(date(2026, 11, 1), 5), (date(2026, 11, 2), 7)]
    # Kept for the grace period, like a superseded version: a reader of the old layout still reads.
    assert old_reader.execute("SELECT sum(agent_job_starts) FROM a").fetchone() == (5,)
    publish(conn, lake=lake, serving=serving, grace=timedelta(0))
    assert sorted(p.name for p in lake.iterdir()) == [CURRENT, *_versions(lake)]
    assert _days_served(serving) == [(date(2026, 11, 1), 5), (date(2026, 11, 2), 7)]
    old_reader.close()


def test_a_newest_version_dated_ahead_of_the_clock_stops_the_publish_in_one_line(conn, tmp_path):
    lake, serving = tmp_path / "lake", tmp_path / "serving.duckdb"
    publish(conn, lake=lake, serving=serving)
    newest = (lake / CURRENT).resolve()
    ahead = newest.with_name(f"publish={int(newest.name.split('=')[1]) - 3_600_000_000}")  # an hour later
    newest.rename(ahead)
    with pytest.raises(ClockSetBack) as raised:
        publish(conn, lake=lake, serving=serving)
    (line,) = str(raised.value).splitlines()
    assert str(ahead) in line and "clock was set back" in line and "publish again" in line


def test_a_version_renamed_in_after_its_time_is_named_in_one_line(tmp_path):
    staging = start(tmp_path / "lake", None)
    version, late = make_visible(staging, None, margin_us=-1_000_000)  # as if the process stalled a second
    assert late >= 1_000_000 and version.path.parent == tmp_path / "lake"
    (line,) = PublishResult(0, 0, 0, tmp_path / "serving.duckdb", late_us=late).warnings()
    assert "after its time" in line and "stalled" in line and "run it again" in line
