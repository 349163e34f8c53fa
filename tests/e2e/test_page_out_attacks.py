"""report.html's `--out` attacked as a hostile (or careless) user would, against the emulator over
loopback: a page written over a file the pipeline keeps (the warehouse) or, at the full tier, into
the directory of a tier whose readers may not see names is refused in one line and nothing is
lost; a data home moved elsewhere has its pages written again by `forget` at their own tier, and
never another home's."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import duckdb
import pyarrow.parquet as pq
import pytest

from emulator import EmulatorConfig, running_emulator
from tests._emulator import environ_for

CLI = str(Path(sys.executable).parent / "metrics-etl")
KEY = "a-test-pseudonym-key-of-some-length"


@pytest.fixture(scope="module")
def emu():
    with running_emulator(EmulatorConfig(seed=7, users=12, repos=1, issues_per_repo=1)) as running:
        yield running


def _env(home: Path, emu: object, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SERVICE_", "WAREHOUSE_", "METRICS_", "DAGSTER_"))}
    env.update(METRICS_HOME=str(home), METRICS_PSEUDONYM_KEY=KEY, **environ_for(emu), **extra)  # type: ignore[arg-type]
    return env


def _run(env: dict[str, str], home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([CLI, *args], env=env, cwd=home, capture_output=True, text=True, timeout=900)


def _cli(env: dict[str, str], home: Path, *args: str) -> str:
    done = _run(env, home, *args)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    return done.stdout


@pytest.fixture(scope="module")
def landed(tmp_path_factory, emu):
    """A home after one day's run and its report."""
    home = tmp_path_factory.mktemp("landed") / "home"
    home.mkdir()
    env = _env(home, emu)
    _cli(env, home, "run", "--day", (datetime.now(UTC).date() - timedelta(days=2)).isoformat())
    _cli(env, home, "report")
    return home, env


def _logins(home: Path) -> set[str]:
    with duckdb.connect(str(home / "warehouse.duckdb"), read_only=True) as conn:
        rows = conn.execute(
            "SELECT user_login FROM core.user_daily_totals UNION SELECT login FROM snapshots.seats"
        ).fetchall()
    return {login for (login,) in rows if login}


def _named(page: str, logins: set[str]) -> set[str]:
    return {login for login in logins if re.search(rf"(?<![\w-]){re.escape(login)}(?![\w-])", page)}


def _one_line(done: subprocess.CompletedProcess[str]) -> str:
    assert done.returncode == 1, done.stdout + done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    return lines[0]


def test_a_page_is_never_written_over_a_file_the_pipeline_keeps_and_nothing_is_lost(landed):
    home, env = landed
    kept = {name: (home / name).read_bytes() for name in ("warehouse.duckdb", "serving.duckdb")}
    for out in (
        home / "warehouse.duckdb",
        home / "serving.duckdb",
        home / "lake" / "page.html",
        home / "aggregate" / "serving-aggregate.duckdb",
        home / "raw" / "page.html",
    ):
        line = _one_line(_run(env, home, "report", "--tier", "aggregate", "--out", str(out)))
        assert "which the pipeline keeps: write the page elsewhere" in line, line
    assert {name: (home / name).read_bytes() for name in kept} == kept
    assert not (home / "lake" / "page.html").exists() and not (home / "raw" / "page.html").exists()
    # The warehouse still answers.
    assert _cli(env, home, "sql", "SELECT count(*) > 0 AS landed FROM bi.agent_usage_daily").strip().endswith("true")


def test_a_full_tier_page_is_refused_where_the_aggregate_or_pseudonymous_tiers_readers_read(landed):
    home, env = landed
    for tier_dir in ("aggregate", "pseudonymous"):
        out = home / tier_dir / "report.html"
        line = _one_line(_run(env, home, "report", "--out", str(out)))
        assert "the full tier names people: give --tier aggregate or write the page elsewhere" in line, line
        assert not out.exists()
        # METRICS_PAGE_TIER=full (the default) is the same refusal; the aggregate tier's page may go there.
        _one_line(_run({**env, "METRICS_PAGE_TIER": "full"}, home, "report", "--out", str(out)))
        _cli(env, home, "report", "--tier", "aggregate", "--out", str(out))
        assert _named(out.read_text(), _logins(home)) == set()


def test_forget_in_a_moved_home_writes_its_own_pages_again_at_their_tier_and_no_other_homes(landed, tmp_path):
    home, env = landed
    # A page for the wide audience, written at the aggregate tier while the setting says full.
    _cli(env, home, "report", "--tier", "aggregate")
    before = (home / "report.html").read_text()
    moved = tmp_path / "moved"
    shutil.copytree(home, moved, symlinks=True)
    moved_env = {**env, "METRICS_HOME": str(moved)}
    full = moved / "full.html"
    _cli(moved_env, moved, "report", "--out", str(full))
    who = sorted(_named(full.read_text(), _logins(moved)))[0]

    _cli(moved_env, moved, "forget", who)

    assert _named(full.read_text(), {who}) == set()
    page = (moved / "report.html").read_text()
    assert "aggregate privacy tier" in page and _named(page, _logins(home)) == set(), "still the aggregate tier"
    assert (home / "report.html").read_text() == before, "the other home's page is not touched"


def test_export_is_never_written_over_a_file_the_pipeline_keeps_nor_into_a_tier_without_names(landed):
    home, env = landed
    kept = (home / "warehouse.duckdb").read_bytes()
    for out, why in (
        (home / "warehouse.duckdb", "which the pipeline keeps"),
        (home / "aggregate" / "seats.csv", "the full tier names people"),
    ):
        line = _one_line(_run(env, home, "export", "--view", "inactive_seats", "--out", str(out)))
        assert why in line, line
    assert (home / "warehouse.duckdb").read_bytes() == kept
    assert not (home / "aggregate" / "seats.csv").exists()


def test_forget_writes_every_export_again_without_the_person(landed, tmp_path):
    home, env = landed
    copy = tmp_path / "home"
    shutil.copytree(home, copy, symlinks=True)
    env = {**env, "METRICS_HOME": str(copy)}
    shared = tmp_path / "share" / "seats.csv"
    _cli(env, copy, "export", "--view", "inactive_seats", "--out", str(shared))
    _cli(env, copy, "export", "--view", "inactive_seats", "--format", "parquet", "--out", str(copy / "seats.parquet"))
    who = sorted(_named(shared.read_text(), _logins(copy)))[0]

    said = _cli(env, copy, "forget", who)

    assert f"export written again: {shared}" in said, said
    assert _named(shared.read_text(), {who}) == set()
    assert "login" in shared.read_text().splitlines()[0]  # still the view's export, header and all
    parquet = pq.read_table(copy / "seats.parquet").to_pylist()
    assert who not in {str(v) for row in parquet for v in row.values()}


def test_a_page_written_before_the_tier_narrowed_is_written_again_by_forget_at_the_narrower_tier(landed, tmp_path):
    home, env = landed
    copy = tmp_path / "home"
    shutil.copytree(home, copy, symlinks=True)
    env = {**env, "METRICS_HOME": str(copy)}
    _cli(env, copy, "report")  # the full tier, METRICS_PAGE_TIER's default
    who = sorted(_named((copy / "report.html").read_text(), _logins(copy)))[0]

    _cli({**env, "METRICS_PAGE_TIER": "aggregate"}, copy, "forget", who)  # the page is now for a wide audience

    page = (copy / "report.html").read_text()
    assert "aggregate privacy tier" in page and _named(page, _logins(home)) == set()
