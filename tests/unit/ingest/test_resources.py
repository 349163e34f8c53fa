"""The landing's settings hold for the landing only: the connection outlives it (a run's page
and summary, a test's queries ran out of the landing's 48 MB when they were left behind)."""

from __future__ import annotations

import duckdb
import pytest

from pipelines.ingest._resources import landing_resources

_UNITS = {"KiB": 2**10, "MiB": 2**20, "GiB": 2**30}


def _settings(conn: duckdb.DuckDBPyConnection) -> tuple[object, ...]:
    """The settings, sizes in whole MiB: DuckDB shows a size to 0.1 of its unit, so a size set
    back from what it shows may differ by less than that (953.6 MiB shown, 953.5 set back)."""
    row = conn.execute(
        "SELECT current_setting('threads'), current_setting('memory_limit'),"
        " current_setting('preserve_insertion_order'), current_setting('checkpoint_threshold')"
    ).fetchone()
    assert row is not None
    threads, memory, order, checkpoint = row

    def mib(size: str) -> int:
        number, unit = size.split()
        return round(float(number) * _UNITS[unit] / 2**20)

    return threads, mib(memory), order, mib(checkpoint)


def test_the_connection_has_its_own_settings_back_after_a_landing_and_after_a_failed_one() -> None:
    conn = duckdb.connect()
    conn.execute("SET threads = 2; SET memory_limit = '2GB'; SET checkpoint_threshold = '16MB'")
    before = _settings(conn)
    with landing_resources(conn):
        assert _settings(conn) != before
        assert conn.execute("SELECT current_setting('threads')").fetchone() == (1,)
    assert _settings(conn) == before
    with pytest.raises(RuntimeError), landing_resources(conn):
        raise RuntimeError("the landing failed")
    assert _settings(conn) == before
    shown = conn.execute("SELECT current_setting('memory_limit')").fetchone()
    for _ in range(3):  # landing after landing: what DuckDB shows never drifts down
        with landing_resources(conn):
            pass
    assert conn.execute("SELECT current_setting('memory_limit')").fetchone() == shown
