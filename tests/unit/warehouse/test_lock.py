import logging
import subprocess
import sys

import duckdb
import pytest

from pipelines.warehouse.lock import WarehouseLocked, connect_for_reading, connect_for_writing


@pytest.fixture
def held(tmp_path):
    path = tmp_path / "w.duckdb"
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import duckdb, sys, time; c = duckdb.connect(sys.argv[1]); print('held', flush=True); time.sleep(600)",
            str(path),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
    yield path, holder
    holder.kill()
    holder.wait()


class _Clock:
    """Time that passes only when the code sleeps: the wait is bounded by the clock, not the test."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds


def test_a_held_warehouse_is_waited_for_saying_so_every_ten_seconds_then_refused_naming_the_holder(held, caplog):
    path, holder = held
    clock = _Clock()
    with caplog.at_level(logging.INFO, logger="pipelines"), pytest.raises(WarehouseLocked) as refused:
        connect_for_writing(path, config={}, wait=25, clock=clock, sleep=clock.sleep)
    lines = [r.getMessage() for r in caplog.records]
    assert [line.split("(waited ")[1].split(" s")[0] for line in lines] == ["0", "10", "20"]
    assert all(f"process {holder.pid} (python" in line for line in lines)
    assert f"held by process {holder.pid}" in str(refused.value) and "WAREHOUSE_LOCK_WAIT=25" in str(refused.value)
    assert clock.now >= 25


def test_the_warehouse_is_taken_once_the_holder_ends(held, caplog):
    path, holder = held
    clock = _Clock()

    def sleep(seconds: float) -> None:
        clock.sleep(seconds)
        if clock.now >= 3:
            holder.kill()
            holder.wait()

    with caplog.at_level(logging.INFO, logger="pipelines"):
        conn = connect_for_writing(path, config={}, wait=60, clock=clock, sleep=sleep)
    conn.execute("CREATE TABLE t AS SELECT 1 AS x")
    conn.close()
    assert caplog.records[-1].getMessage().startswith("got the warehouse after waiting 3 s")


def test_an_error_that_is_not_a_lock_is_raised_at_once(tmp_path):
    (tmp_path / "dir.duckdb").mkdir()
    with pytest.raises(duckdb.Error):
        connect_for_writing(tmp_path / "dir.duckdb", config={}, wait=60)


def test_a_reader_waits_for_a_writer_in_another_process_too(held, caplog):
    # A summary read right after a run must not fail because the next run writes now.
    path, holder = held
    clock = _Clock()

    def sleep(seconds: float) -> None:
        clock.sleep(seconds)
        if clock.now >= 2:
            holder.kill()
            holder.wait()

    with caplog.at_level(logging.INFO, logger="pipelines"):
        conn = connect_for_reading(path, wait=30, clock=clock, sleep=sleep)
    with conn:
        assert conn.execute("SELECT 1").fetchone() == (1,)
        with pytest.raises(duckdb.Error):
            conn.execute("CREATE TABLE t (x INT)")  # read-only
    assert "got the warehouse" in caplog.records[-1].getMessage()
