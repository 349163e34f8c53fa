"""`metrics-etl sql` on a home the demo built, as a user types it: the attacks of issue 42 verbatim
change no file of the home or of TMPDIR, the numbers BI readers see stay; a PIVOT without IN on
a bi view prints its rows; a long count is stopped by the time limit in one line."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

CLI = str(Path(sys.executable).parent / "metrics-etl")


def _cli(home: Path, temp: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    environ = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("SERVICE_", "WAREHOUSE_", "METRICS_", "DAGSTER_", "SERVING_", "LAKE_"))
    }
    return subprocess.run(
        [CLI, "--home", str(home), *args],
        env={**environ, "TMPDIR": str(temp), **env},
        cwd=temp,
        capture_output=True,
        text=True,
        timeout=600,
    )


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A small demo's home, and a temporary directory of its own."""
    root = tmp_path_factory.mktemp("sql-shell")
    home, temp = root / "home", root / "tmp"
    temp.mkdir()
    done = _cli(home, temp, "demo", "--days", "2", "--users", "10", "--repos", "1")
    assert done.returncode == 0, done.stderr[-3000:]
    return home, temp


def _files(*roots: Path) -> dict[str, tuple[int, int, str]]:
    """Every file and directory under the roots (not the roots themselves): size, time, digest."""
    found = {}
    for root in roots:
        for path in sorted(root.rglob("*")):
            stat = path.lstat()
            digest = hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() and not path.is_symlink() else ""
            found[str(path)] = (stat.st_size, stat.st_mtime_ns, digest)
    return found


FIGURES = (
    "SELECT (SELECT count(*) FROM core.user_daily_totals) AS users, "
    "(SELECT sum(daily_active_users) FROM core.daily_totals) AS active"
)


def test_the_issue_s_attacks_change_no_file_and_no_figure(demo: tuple[Path, Path]) -> None:
    home, temp = demo
    lake = home / "lake" / "current"
    (lake_file,) = sorted((lake / "core.daily_totals").glob("month=2026-11-01/*.parquet"))
    table = lake / "core.user_daily_totals"
    figures = _cli(home, temp, "sql", "--format", "csv", FIGURES)
    assert figures.returncode == 0 and int(figures.stdout.splitlines()[1].split(",")[0]) > 0, figures.stderr
    before = _files(home, temp)
    for statement in (
        f"EXPLAIN ANALYZE COPY (SELECT * REPLACE (999999 AS daily_active_users) FROM read_parquet('{lake_file}')) "
        f"TO '{lake_file}'",
        f"EXPLAIN ANALYZE COPY (SELECT 1 AS x, 1 AS p) TO '{table}' (PARTITION_BY (p), OVERWRITE true)",
        f"EXPLAIN ANALYZE COPY (SELECT 1 AS x) TO '{home / 'serving.duckdb.tmp' / 'beside.csv'}'",
        f"EXPLAIN ANALYZE COPY (SELECT 1 AS x) TO '{home / 'beside.csv'}'",
        "EXPLAIN ANALYZE CREATE TEMP TABLE t AS SELECT 1 AS n",
        "EXPLAIN (ANALYZE, FORMAT json) CREATE TEMP MACRO m() AS TABLE SELECT 1",
        f"PREPARE p AS COPY (SELECT 1) TO '{lake}/p.csv'; EXECUTE p",
    ):
        done = _cli(home, temp, "sql", statement)
        assert done.returncode == 1, (statement, done.stdout)
        (line,) = done.stderr.splitlines()
        assert line.startswith("metrics-etl sql: the SQL shell is read-only: "), line
        assert _files(home, temp) == before, statement
    assert _cli(home, temp, "sql", "--format", "csv", FIGURES).stdout == figures.stdout


def test_pivot_without_in_on_a_bi_view_prints_its_rows(demo: tuple[Path, Path]) -> None:
    home, temp = demo
    pivot = (
        "PIVOT (SELECT scope, day, daily_active_users FROM core.daily_totals) ON scope USING sum(daily_active_users)"
    )
    done = _cli(home, temp, "sql", "--format", "csv", f"{pivot} ORDER BY day")
    expected = _cli(
        home,
        temp,
        "sql",
        "--format",
        "csv",
        "SELECT DISTINCT day FROM core.daily_totals WHERE day IS NOT NULL ORDER BY day",
    )
    assert done.returncode == 0, done.stderr
    header, *rows = done.stdout.splitlines()
    assert header.startswith("day,") and "organization" in header
    assert [row.split(",")[0] for row in rows] == expected.stdout.splitlines()[1:]


def test_a_long_count_is_stopped_by_the_time_limit_in_one_line(demo: tuple[Path, Path]) -> None:
    home, temp = demo
    started = time.monotonic()
    long = "SELECT count(*) FROM range(1000000) a, range(1000000) b WHERE a.range + b.range = -1"
    done = _cli(home, temp, "sql", long, METRICS_SQL_TIMEOUT="1")
    assert time.monotonic() - started < 60  # unbounded, it runs for hours
    assert done.returncode == 1
    assert done.stderr.splitlines() == [
        "metrics-etl sql: the query ran past the SQL shell's time limit of 1 s (METRICS_SQL_TIMEOUT): "
        "narrow it, or raise the limit"
    ]
