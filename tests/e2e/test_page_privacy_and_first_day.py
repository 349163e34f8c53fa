"""report.html as a new user meets it, against the emulator over loopback: after a first one-day
`run` it says its 28-day figures cover 1 of 28 days; it follows the privacy tier chosen for it
(aggregate names nobody); `forget` writes every recorded page again without the person."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import duckdb
import pytest

from emulator import EmulatorConfig, running_emulator
from tests._emulator import environ_for

CLI = str(Path(sys.executable).parent / "metrics-etl")
KEY = "a-test-pseudonym-key-of-some-length"


@pytest.fixture(scope="module")
def emu():
    with running_emulator(EmulatorConfig(seed=7, users=24, repos=2, issues_per_repo=1)) as running:
        yield running


def _env(home: Path, emu: object, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SERVICE_", "WAREHOUSE_", "METRICS_", "DAGSTER_"))}
    env.update(METRICS_HOME=str(home), METRICS_PSEUDONYM_KEY=KEY, **environ_for(emu), **extra)  # type: ignore[arg-type]
    return env


def _cli(env: dict[str, str], home: Path, *args: str) -> str:
    done = subprocess.run([CLI, *args], env=env, cwd=home, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    return done.stdout


@pytest.fixture(scope="module")
def first_day_home(tmp_path_factory, emu):
    """A home after the README's first real-service step: `run` of one day, then `report`."""
    home = tmp_path_factory.mktemp("first-day")
    env = _env(home, emu)
    _cli(env, home, "run", "--day", (datetime.now(UTC).date() - timedelta(days=2)).isoformat())
    _cli(env, home, "report")
    return home, env


def _logins(home: Path) -> set[str]:
    with duckdb.connect(str(home / "warehouse.duckdb"), read_only=True) as conn:
        rows = conn.execute(
            "SELECT user_login FROM core.user_daily_totals UNION SELECT login FROM snapshots.seats"
            " UNION SELECT user_login FROM core.user_team_days"
        ).fetchall()
    return {login for (login,) in rows if login}


def _named(page: str, logins: set[str]) -> set[str]:
    return {login for login in logins if re.search(rf"(?<![\w-]){re.escape(login)}(?![\w-])", page)}


def test_a_first_one_day_run_says_its_28_day_team_figures_cover_1_of_28_days(first_day_home):
    home, _ = first_day_home
    page = (home / "report.html").read_text()
    teams = re.search(r'<section class="card" id="teams">(.*?)</section>', page, re.S).group(1)
    assert "only 1 of 28 days landed" in teams
    # Agent job starts and users come from the latest 28-day reports too: all 28 days, said as such.
    periods = re.search(r"<h2>Period over period</h2>(.*?)</section>", page, re.S).group(1)
    assert "28 reported days" in periods and "of 28 days landed" not in periods


def test_the_aggregate_tier_page_names_nobody_and_the_full_one_lists_unused_seats_by_login(first_day_home, tmp_path):
    home, env = first_day_home
    logins = _logins(home)
    full = (home / "report.html").read_text()
    assert _named(full, logins), "the full page lists the unused seats by login"
    _cli(env, home, "report", "--tier", "aggregate", "--out", str(tmp_path / "wide.html"))
    wide = (tmp_path / "wide.html").read_text()
    assert _named(wide, logins) == set()
    # Read from the aggregate tier alone: its teams as it shows them, a hidden one without a figure.
    with duckdb.connect(str(home / "aggregate" / "serving-aggregate.duckdb"), read_only=True) as conn:
        teams = conn.execute(
            "SELECT team_slug, suppressed, members, active_users FROM aggregate.team_periods"
            " WHERE period_index = 0 AND scope = 'organization'"
        ).fetchall()
    assert any(hidden for _, hidden, _, _ in teams) and any(not hidden for _, hidden, _, _ in teams)
    shown = dict(re.findall(r'<tr class="team-row"><td[^>]*>([^<]+)</td>(.*?)</tr>', wide, re.S))
    assert set(shown) == {slug for slug, *_ in teams}
    for slug, hidden, members, active in teams:
        figures = re.findall(r'<td class="num"[^>]*>([^<]*)</td>', shown[slug])
        if hidden:
            assert "hidden: could tell of fewer than k people" in shown[slug] and figures == ["", ""], slug
        else:
            assert figures[:2] == [f"{members:,}", f"{active:,}"], slug
    assert "<h2>Seats</h2>" not in wide and "Unused longest" not in wide
    # The setting does the same as the option.
    _cli({**env, "METRICS_PAGE_TIER": "aggregate"}, home, "report", "--out", str(tmp_path / "set.html"))
    assert _named((tmp_path / "set.html").read_text(), logins) == set()


def test_a_page_tier_that_does_not_exist_is_one_line_naming_the_setting(first_day_home):
    home, env = first_day_home
    done = subprocess.run(
        [CLI, "report"],
        env={**env, "METRICS_PAGE_TIER": "public"},
        cwd=home,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode != 0
    assert done.stderr.strip().splitlines() == [next(line for line in done.stderr.splitlines() if line.strip())]
    assert "METRICS_PAGE_TIER must be full or aggregate, not 'public'" in done.stderr


def test_forget_writes_every_recorded_page_again_without_the_person(tmp_path, emu):
    home = tmp_path / "home"
    home.mkdir()
    env = _env(home, emu)
    _cli(env, home, "run", "--day", (datetime.now(UTC).date() - timedelta(days=2)).isoformat())
    elsewhere = tmp_path / "www" / "adoption.html"
    _cli(env, home, "report")
    _cli(env, home, "report", "--out", str(elsewhere))
    page = (home / "report.html").read_text()
    named = sorted(_named(page, _logins(home)))
    assert named, "the page names someone (an unused seat) before the erasure"
    who = named[0]
    assert _named(elsewhere.read_text(), {who}) == {who}

    said = _cli(env, home, "forget", who)

    assert f"report page written again: {home / 'report.html'}" in said
    assert f"report page written again: {elsewhere}" in said
    for rewritten in (home / "report.html", elsewhere):
        text = rewritten.read_text()
        assert _named(text, {who}) == set(), rewritten
        assert "<h2>Seats</h2>" in text  # the page is whole, the others still listed
        assert _named(text, set(named) - {who}) == set(named) - {who}
