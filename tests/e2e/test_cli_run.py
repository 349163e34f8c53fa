"""`metrics-etl run` as a user runs it: a subprocess, configured by environment variables."""

import os
import subprocess
import sys
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import duckdb
import pytest

from emulator import EmulatorConfig, running_emulator
from tests._emulator import environ_for

CLI = str(Path(sys.executable).parent / "metrics-etl")


def _env(tmp_path: Path, **extra: str) -> dict[str, str]:
    """Every file under `tmp_path`; `extra` names the service (`environ_for`) and overrides."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SERVICE_", "WAREHOUSE_", "METRICS_", "DAGSTER_"))}
    env.update(
        METRICS_HOME=str(tmp_path),
        WAREHOUSE_PATH=str(tmp_path / "w.duckdb"),
        RAW_DIR=str(tmp_path / "raw"),
        SERVING_PATH=str(tmp_path / "serving.duckdb"),
        LAKE_PATH=str(tmp_path / "lake"),
        SERVICE_ETAG_CACHE=str(tmp_path / "etag.sqlite3"),
    )
    env.update(extra)
    return env


def test_run_lands_a_range_with_progress_and_a_summary(tmp_path):
    first, last = date.today() - timedelta(days=9), date.today() - timedelta(days=5)
    with running_emulator(EmulatorConfig(seed=21, users=12, repos=2, issues_per_repo=3)) as emu:
        done = subprocess.run(
            [CLI, "run", "--from", first.isoformat(), "--to", last.isoformat()],
            env=_env(tmp_path, **environ_for(emu)),
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=600,
        )
    assert done.returncode == 0, done.stderr[-3000:]
    assert f"{first} .. {last} … ok" in done.stdout
    assert "latest … ok" in done.stdout and "snapshot" in done.stdout
    assert "core.daily_totals" in done.stdout and "third-party agents" in done.stdout
    with duckdb.connect(str(tmp_path / "serving.duckdb"), read_only=True) as conn:
        days = conn.execute(
            "SELECT count(DISTINCT day) FROM core.daily_totals WHERE day BETWEEN ? AND ?", [first, last]
        ).fetchone()[0]
    assert days == 5


def test_run_without_permission_says_so_in_one_line(tmp_path):
    with running_emulator(EmulatorConfig(seed=22, users=4, repos=1)) as emu:
        limited = emu.credentials["limited_token"]
        done = subprocess.run(
            [CLI, "run", "--day", (date.today() - timedelta(days=5)).isoformat(), "--no-latest", "--no-snapshots"],
            env=_env(tmp_path, **environ_for(emu, SERVICE_TOKEN=limited)),
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=600,
        )
    assert done.returncode == 1
    (message,) = done.stderr.strip().splitlines()  # one line, no traceback
    assert message.startswith("metrics-etl run:") and "403" in message and "permission" in message.lower()
    assert limited not in done.stderr + done.stdout


def _utc_today() -> date:
    return datetime.now(UTC).date()


def _run(env: dict[str, str], cwd: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([CLI, "run", *args], env=env, cwd=cwd, capture_output=True, text=True, timeout=600)


def test_a_first_run_before_the_days_report_exists_says_not_available_per_scope_and_exits_0(tmp_path):
    today = _utc_today()
    yesterday = today - timedelta(days=1)
    # The platform's today is our yesterday: yesterday's report is still being made (204 for the
    # organization, 404 for the enterprise, as the public service answers).
    config = EmulatorConfig(seed=23, users=4, repos=1, today=yesterday, history_days=30)
    with running_emulator(config) as emu:
        env = _env(tmp_path, **environ_for(emu, SERVICE_ENTERPRISE=emu.credentials["enterprise"]))
        first = _run(env, tmp_path, "--day", today.isoformat(), "--no-latest", "--no-snapshots")
        assert first.returncode == 0, first.stderr[-3000:]
        # No report landed; the bill of the day's month did (billing follows the run's days).
        assert f"{today} not available yet" in first.stdout
        assert f"billed usage of the months from {today:%Y-%m}" in first.stdout
        done = _run(env, tmp_path, "--day", yesterday.isoformat(), "--no-latest", "--no-snapshots")
        assert done.returncode == 0, done.stderr[-3000:]
        assert f"organization acme: not available yet: {yesterday}" in done.stdout
        assert f"enterprise acme-corp: not available yet: {yesterday}" in done.stdout
        old = today - timedelta(days=200)
        before = _run(env, tmp_path, "--day", old.isoformat(), "--no-latest", "--no-snapshots")
        assert before.returncode == 0, before.stderr[-3000:]
        assert f"organization acme: no report exists for {old} (before the platform's history" in before.stdout
    with duckdb.connect(str(tmp_path / "w.duckdb"), read_only=True) as conn:
        # No usage report file (the billing exports of the months are archived there too).
        assert conn.execute("SELECT count(*) FROM raw.report_files WHERE level <> 'billing'").fetchone() == (0,)


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (("--to", "2026-01-05"), "--to needs --from"),
        (("--day", "2026-01-05", "--to", "2026-01-09"), "--to goes with --from, not with --day"),
        (("--from", "2026-01-09", "--to", "2026-01-05"), "--from 2026-01-09 is after --to 2026-01-05"),
        (("--day", "2999-01-01"), "2999-01-01 is in the future"),
    ],
)
def test_run_arguments_that_make_no_sense_are_refused_in_one_line(tmp_path, args, says):
    done = _run(
        _env(tmp_path, SERVICE_BASE_URL="http://127.0.0.1:9", SERVICE_TOKEN="t", SERVICE_ORG="acme"), tmp_path, *args
    )
    assert done.returncode == 2
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith("metrics-etl run:") and says in line


def test_several_organizations_and_enterprises_each_land_on_their_own(tmp_path):
    day = _utc_today() - timedelta(days=6)
    config = EmulatorConfig(
        seed=24, users=6, repos=2, issues_per_repo=2, org="acme,globex", enterprise="acme-corp,initech"
    )
    with running_emulator(config) as emu:
        env = _env(tmp_path, **environ_for(emu, SERVICE_ORG="acme,globex", SERVICE_ENTERPRISE="acme-corp,initech"))
        done = _run(env, tmp_path, "--day", day.isoformat(), "--no-latest")
    assert done.returncode == 0, done.stderr[-3000:]
    with duckdb.connect(str(tmp_path / "w.duckdb"), read_only=True) as conn:
        landed = conn.execute(
            "SELECT scope, scope_name, count(*) FROM core.user_daily_totals WHERE day = ? GROUP BY ALL ORDER BY ALL",
            [day],
        ).fetchall()
        orgs = conn.execute("SELECT DISTINCT org_login FROM snapshots.org_members ORDER BY 1").fetchall()
        owners = conn.execute("SELECT DISTINCT owner_login FROM snapshots.repositories ORDER BY 1").fetchall()
    assert [(scope, name) for scope, name, _ in landed] == [
        ("enterprise", "acme-corp"),
        ("enterprise", "initech"),
        ("organization", "acme"),
        ("organization", "globex"),
    ]
    assert all(rows > 0 for _, _, rows in landed)
    assert orgs == owners == [("acme",), ("globex",)]


def test_a_mistyped_scope_fails_naming_its_variable_while_the_good_scope_lands(tmp_path):
    day = _utc_today() - timedelta(days=6)
    with running_emulator(EmulatorConfig(seed=25, users=4, repos=1)) as emu:
        env = _env(tmp_path, **environ_for(emu, SERVICE_ENTERPRISE="nope"))
        done = _run(env, tmp_path, "--day", day.isoformat(), "--no-latest", "--no-snapshots")
    assert done.returncode == 1
    (line,) = done.stderr.strip().splitlines()
    assert "SERVICE_ENTERPRISE names 'nope'" in line and "no enterprise of that name" in line
    log = Path(line.rsplit("full log: ", 1)[1].rstrip(")"))
    assert log.is_file() and "SERVICE_ENTERPRISE names 'nope'" in log.read_text()
    with duckdb.connect(str(tmp_path / "w.duckdb"), read_only=True) as conn:
        assert conn.execute("SELECT DISTINCT scope_name FROM core.daily_totals").fetchall() == [("acme",)]


def test_a_full_disk_under_the_warehouse_is_named_in_the_failure_line(tmp_path):
    mount = tmp_path / "tmpfs"
    mount.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(mount)], capture_output=True).returncode:
        pytest.skip("cannot mount a tmpfs here (needs root)")
    try:
        first = _utc_today() - timedelta(days=12)
        with running_emulator(EmulatorConfig(seed=26, users=300, repos=1)) as emu:
            env = _env(tmp_path, **environ_for(emu), WAREHOUSE_PATH=str(mount / "w.duckdb"))
            done = _run(
                env,
                tmp_path,
                "--from",
                first.isoformat(),
                "--to",
                (first + timedelta(days=6)).isoformat(),
                "--no-latest",
                "--no-snapshots",
            )
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)
    assert done.returncode == 1
    (line,) = done.stderr.strip().splitlines()
    assert "the disk is full" in line and "No space left on device" in line, line
    assert "cannot rollback" not in line


def test_a_first_one_day_run_says_its_team_figures_cover_1_of_the_28_days(tmp_path):
    # The README's first run against the service: `metrics-etl run` (yesterday, the latest 28-day
    # report, today's snapshot). Teams are listed by the day's own report: one day of 28.
    start = _utc_today() - timedelta(days=28)
    with running_emulator(EmulatorConfig(seed=24, users=30, repos=1, issues_per_repo=1)) as emu:
        done = _run(_env(tmp_path, **environ_for(emu)), tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    teams = done.stdout.split("teams in the last 28 days", 1)[1].splitlines()
    assert teams[1].startswith("  organization acme: only 1 day of the 28 landed: the figures cover it alone (`")
    assert teams[1].endswith(f"metrics-etl run --from {start}` lands the rest)"), teams[1]
    assert all(line.endswith("no comparison") for line in teams[2:] if " members " in line), teams
