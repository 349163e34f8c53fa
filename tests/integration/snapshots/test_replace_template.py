"""A snapshot table has no SQL of its own: one statement replaces the day of every one."""

import duckdb
import polars as pl

from pipelines._paths import SQL_DIR
from pipelines.warehouse import migrate
from pipelines.warehouse.snapshots import SNAPSHOT_TABLES, replace_snapshot_day
from tests.integration.snapshots.test_warehouse import DAY, OTHER, _frames


def test_no_snapshot_table_has_a_replace_statement_of_its_own() -> None:
    own = sorted(t for t in SNAPSHOT_TABLES if (SQL_DIR / "snapshots" / f"replace_{t}_day.sql").exists())
    assert own == []


def test_the_one_statement_replaces_each_snapshot_table_s_day_and_keeps_its_other_days() -> None:
    conn = duckdb.connect()
    migrate(conn)
    replace_snapshot_day(conn, day=OTHER, frames=_frames(OTHER))
    replace_snapshot_day(conn, day=DAY, frames=_frames(DAY))
    replace_snapshot_day(conn, day=DAY, frames={t: pl.DataFrame(schema=f.schema) for t, f in _frames(DAY).items()})
    for t in SNAPSHOT_TABLES:
        days = conn.sql(f"SELECT DISTINCT snapshot_day FROM snapshots.{t}").fetchall()
        assert days == [(OTHER,)], t
