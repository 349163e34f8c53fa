"""A report fetched again whose bytes changed (a provisional day grows with every fetch), against
the emulator over loopback with the real `metrics-etl` command in a real data home: the archive
file it replaces goes once the new one's row commits, so every archived file is named by a
`raw.report_files` row, and `forget` and retention reach every file that holds a person. A file
a crash left without its row (killed between the commit and the removal, or before the commit)
is removed by the next fetch of its report, reached by `forget` and removed by retention."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import duckdb
import pytest

from tests.e2e.test_forget import _scan
from tests.e2e.test_page_out_attacks import CLI, _cli, _env, emu  # noqa: F401 (the emulator fixture)

# Provisional (fewer than three full days old): the emulator's report of it grows on every fetch.
DAY = (datetime.now(UTC).date() - timedelta(days=2)).isoformat()
RUN = ("run", "--day", DAY, "--no-latest", "--no-snapshots")
_ARCHIVE_NAME = re.compile(r"\d{4}-[0-9a-f]{16}\.ndjson\.zst")


def _archived(home: Path) -> set[str]:
    """Every archive file under the home's raw/, by its path under raw/."""
    raw = home / "raw"
    return {str(p.relative_to(raw)) for p in raw.rglob("*") if p.is_file() and _ARCHIVE_NAME.fullmatch(p.name)}


def _recorded(home: Path) -> set[str]:
    """Every archive file a raw.report_files row names, by its path under the raw/ it was written in."""
    with duckdb.connect(str(home / "warehouse.duckdb"), read_only=True) as conn:
        paths = [path for (path,) in conn.execute("SELECT archive_path FROM raw.report_files").fetchall()]
    return {str(Path(*Path(path).parts[-5:])) for path in paths}


def _unrecorded(home: Path) -> set[str]:
    return _archived(home) - _recorded(home)


def _user_files(home: Path) -> list[Path]:
    return sorted(p for p in (home / "raw").rglob("*.ndjson.zst") if "/user-1-day/" in str(p))


def _a_login(home: Path) -> tuple[str, int]:
    with duckdb.connect(str(home / "warehouse.duckdb"), read_only=True) as conn:
        login, user_id = conn.execute(
            "SELECT user_login, user_id FROM core.user_daily_totals ORDER BY user_id LIMIT 1"
        ).fetchone()
    return login, user_id


def _home(tmp_path: Path, name: str = "home") -> Path:
    home = tmp_path / name
    home.mkdir(parents=True)
    return home


def test_a_report_fetched_again_with_new_bytes_leaves_no_archive_file_without_its_row(tmp_path, emu):  # noqa: F811
    home = _home(tmp_path)
    env = _env(home, emu)
    _cli(env, home, *RUN)
    first = _archived(home)
    for _ in range(3):
        _cli(env, home, *RUN)
    # The day grew on every fetch: its files have new names (their sha256), the old ones went.
    assert _archived(home) - first
    assert _unrecorded(home) == set()
    assert len(_archived(home)) == len(_recorded(home))


def test_forget_after_a_refetch_leaves_the_person_in_no_archived_file(tmp_path, emu):  # noqa: F811
    home = _home(tmp_path)
    env = _env(home, emu)
    _cli(env, home, *RUN)
    _cli(env, home, *RUN)
    login, user_id = _a_login(home)
    _cli(env, home, "forget", login)
    traces = re.compile(rf'"{re.escape(login)}"|"user_id":\s*{user_id}\b', re.I)
    assert _scan(home, traces, skip=tuple(p.name for p in home.iterdir() if p.name != "raw")) == []
    # Fetched again after the erasure: still in no file of the archive.
    _cli(env, home, *RUN)
    assert _scan(home, traces, skip=tuple(p.name for p in home.iterdir() if p.name != "raw")) == []
    assert _unrecorded(home) == set()


def test_retention_after_a_refetch_removes_every_archived_file_of_the_expired_day(tmp_path, emu):  # noqa: F811
    home = _home(tmp_path)
    env = _env(home, emu)
    _cli(env, home, *RUN)
    _cli(env, home, *RUN)
    # One day kept: the day two days ago expires at the publish.
    _cli(_env(home, emu, METRICS_RETENTION_DAYS="1"), home, "publish")
    assert _user_files(home) == []
    assert [p for p in _archived(home) if f"_{DAY}/" in p] == []


def _crash_leftovers(tmp_path: Path, emu: object) -> tuple[Path, dict[str, str], set[str]]:  # noqa: F811
    """A home whose user-level files of an earlier fetch are back in place beside the newer ones:
    what a run killed between its commit and the removal of the files it replaced leaves."""
    home = _home(tmp_path)
    env = _env(home, emu)
    _cli(env, home, *RUN)
    aside = tmp_path / "aside"
    shutil.copytree(home / "raw", aside)
    _cli(env, home, *RUN)
    for path in aside.rglob("*.ndjson.zst"):
        target = home / "raw" / path.relative_to(aside)
        if not target.exists():
            shutil.copy2(path, target)
    left = _unrecorded(home)
    assert left  # the earlier fetch's files, without their rows
    return home, env, left


def test_files_a_crash_left_without_a_row_are_removed_by_the_next_fetch_of_their_report(tmp_path, emu):  # noqa: F811
    home, env, _ = _crash_leftovers(tmp_path, emu)
    _cli(env, home, *RUN)
    assert _unrecorded(home) == set()


def test_forget_reaches_files_a_crash_left_without_a_row(tmp_path, emu):  # noqa: F811
    home, env, left = _crash_leftovers(tmp_path, emu)
    login, user_id = _a_login(home)
    traces = re.compile(rf'"{re.escape(login)}"|"user_id":\s*{user_id}\b', re.I)
    found = _scan(home, traces, skip=tuple(p.name for p in home.iterdir() if p.name != "raw"))
    assert any(str(Path("raw", p)) in found for p in left)
    _cli(env, home, "forget", login)
    assert _scan(home, traces, skip=tuple(p.name for p in home.iterdir() if p.name != "raw")) == []


def test_retention_removes_files_a_crash_left_without_a_row(tmp_path, emu):  # noqa: F811
    home, _, _ = _crash_leftovers(tmp_path, emu)
    _cli(_env(home, emu, METRICS_RETENTION_DAYS="1"), home, "publish")
    assert [p for p in _archived(home) if f"_{DAY}/" in p] == []


def test_retention_in_a_moved_home_removes_the_expired_days_archived_files(tmp_path, emu):  # noqa: F811
    home = _home(tmp_path)
    _cli(_env(home, emu), home, *RUN)
    moved = tmp_path / "elsewhere" / "home"
    shutil.move(home, moved)
    _cli(_env(moved, emu, METRICS_RETENTION_DAYS="1"), moved, "publish")
    assert [p for p in _archived(moved) if f"_{DAY}/" in p] == []


def test_a_refetch_in_a_moved_home_removes_the_file_it_replaced(tmp_path, emu):  # noqa: F811
    home = _home(tmp_path)
    _cli(_env(home, emu), home, *RUN)
    moved = tmp_path / "elsewhere" / "home"
    shutil.move(home, moved)
    first = _archived(moved)
    _cli(_env(moved, emu), moved, *RUN)
    assert _archived(moved) - first  # other bytes, other names
    assert _unrecorded(moved) == set()


@pytest.mark.parametrize("after", [2.0, 4.5])
def test_a_run_killed_at_any_moment_leaves_no_file_without_its_row_once_the_day_is_fetched_again(
    tmp_path,
    emu,  # noqa: F811
    after,
):
    home = _home(tmp_path)
    env = _env(home, emu)
    _cli(env, home, *RUN)
    for attempt in range(2):
        log = (home / f"killed-{attempt}.log").open("w")
        process = subprocess.Popen(
            [CLI, *RUN], env=env, cwd=home, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
        )
        time.sleep(after)
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)  # the run and its own children (Dagster's steps)
        process.wait(timeout=30)
        log.close()
    _cli(env, home, *RUN)
    assert _unrecorded(home) == set()
