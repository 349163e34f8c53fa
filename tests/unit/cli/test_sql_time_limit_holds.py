"""`metrics-etl sql`'s time limit holds for a sleep (`sleep_ms`), a statement whose planning alone
outlasts the limit (5,000 UNION ALL arms) and one no interrupt reaches (a parse of 300,000
columns): the shell, a real process, ends soon after the limit with the one line of the time
limit, and leaves no spill directory behind; nor does a shell ended by a signal (SIGHUP when its
terminal closes)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

CLI = str(Path(sys.executable).parent / "metrics-etl")
LINE = (
    "metrics-etl sql: the query ran past the SQL shell's time limit of 0.5 s (METRICS_SQL_TIMEOUT): "
    "narrow it, or raise the limit"
)


def _sql(serving: Path, tmp_path: Path, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    environ = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("SERVICE_", "WAREHOUSE_", "METRICS_", "SERVING_", "LAKE_"))
    }
    temp = tmp_path / "tmp"
    temp.mkdir(exist_ok=True)
    environ.update(
        SERVING_PATH=str(serving), LAKE_PATH=str(tmp_path / "lake"), TMPDIR=str(temp), METRICS_SQL_TIMEOUT="0.5"
    )
    return subprocess.run(
        [CLI, "sql", "--format", "csv", *args],
        env=environ,
        cwd=temp,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.parametrize(
    "statement",
    [
        "SELECT sleep_ms(600000) AS slept",
        "SELECT count(*) FROM (SELECT 1 AS x" + " UNION ALL SELECT 1" * 5000 + ")",
        "SELECT 1 AS first; SELECT sleep_ms(600000) AS slept",
        # No interrupt reaches DuckDB's parser or planner: 300,000 columns ran 24 s past a 1 s limit.
        "SELECT " + ",".join(["1"] * 300_000),
    ],
    ids=["sleep", "planning", "second-statement", "parsing"],
)
def test_work_duckdb_does_not_interrupt_ends_in_one_line_soon_after_the_limit(
    serving: Path, tmp_path: Path, statement: str
) -> None:
    started = time.monotonic()
    done = _sql(serving, tmp_path, stdin=statement)
    assert time.monotonic() - started < 12  # unbounded, a sleep of 600 s, a parse of 24 s
    assert done.returncode == 1
    assert done.stderr.splitlines() == [LINE]
    assert list((tmp_path / "tmp").iterdir()) == []  # the private spill directory is gone too


@pytest.mark.parametrize("signal_number", [signal.SIGHUP, signal.SIGTERM])
def test_a_shell_ended_by_its_terminal_closing_leaves_no_spill_directory(
    serving: Path, tmp_path: Path, signal_number: int
) -> None:
    environ = {k: v for k, v in os.environ.items() if not k.startswith(("METRICS_", "SERVING_", "LAKE_"))}
    temp = tmp_path / "tmp"
    temp.mkdir()
    environ.update(SERVING_PATH=str(serving), LAKE_PATH=str(tmp_path / "lake"), TMPDIR=str(temp))
    # Waiting for its SQL on stdin, as a prompt waits for a line, when the terminal goes away.
    with subprocess.Popen(
        [CLI, "sql"], env=environ, cwd=temp, stdin=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    ) as shell:
        while not list(temp.iterdir()):
            assert shell.poll() is None, shell.stderr.read() if shell.stderr else ""
            time.sleep(0.05)
        time.sleep(0.5)  # into its read of stdin
        shell.send_signal(signal_number)
        shell.wait(timeout=30)
    assert list(temp.iterdir()) == []
