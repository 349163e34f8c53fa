"""report.html read the way a new user reads it, on hand-built DuckDB files through the CLI: the
headline tile calls a change by the same rule as the tables (colour included), the change of a
rate a day is said plainly, a team's verdict stands beside the measure it is called on, and a
repository is one row per scope."""

from __future__ import annotations

import math
import os
import re
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import duckdb
import pytest

from tests.integration.bi._warehouse import DAYS, LAST_DAY, build_warehouse, refresh_derived


def _report(serving: Path, home: Path) -> str:
    env = {
        **os.environ,
        "METRICS_HOME": str(home),
        "SERVING_PATH": str(serving),
        "WAREHOUSE_PATH": str(home / "absent.duckdb"),
    }
    out = home / "page.html"
    done = subprocess.run(
        [sys.executable, "-m", "pipelines.cli", "report", "--out", str(out)],
        env=env,
        cwd=home,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return out.read_text()


def _rule(current: list[int], previous: list[int]) -> str:
    """The change rule of docs/bi.md, written again here: the difference of the means against
    1.96 standard errors, each period's variance at least its mean."""

    def var(xs: list[int]) -> float:
        mean = sum(xs) / len(xs)
        return max(sum((x - mean) ** 2 for x in xs) / (len(xs) - 1), mean)

    diff = sum(current) / len(current) - sum(previous) / len(previous)
    margin = 1.96 * math.sqrt(var(current) / len(current) + var(previous) / len(previous))
    return "grown" if diff > margin else "shrunk" if -diff > margin else "steady"


@pytest.mark.parametrize("newer_factor", [1, 3])
def test_the_headline_tile_calls_the_total_by_the_rule_and_colours_only_a_called_change(tmp_path, newer_factor):
    serving = tmp_path / "serving.duckdb"
    expected = build_warehouse(serving)
    if newer_factor != 1:  # the last 28 days' job starts tripled: a change beyond any noise
        with duckdb.connect(str(serving)) as conn:
            conn.execute(
                "UPDATE core.agent_activity SET agent_job_starts = agent_job_starts * ? WHERE day > ?",
                [newer_factor, LAST_DAY - timedelta(days=28)],
            )
            refresh_derived(conn)
    page = _report(serving, tmp_path)

    first = LAST_DAY - timedelta(days=DAYS - 1)
    totals: dict[int, list[int]] = {0: [], 1: []}
    for n in range(DAYS):
        day = first + timedelta(days=n)
        if day in expected.gap_days or day in expected.provisional_days:
            continue
        newer = (LAST_DAY - day).days < 28
        starts = sum(v for (d, _), v in expected.job_starts.items() if d == day)
        totals[0 if newer else 1].append(starts * (newer_factor if newer else 1))
    call = _rule(totals[0], totals[1])
    assert call == ("steady" if newer_factor == 1 else "grown")

    tile = re.search(r'<div class="tile-label">Agent job starts</div>(.*?)</div></div>', page, re.S).group(1)
    assert f'data-call="{call}"' in tile
    share = sum(totals[0]) / len(totals[0]) / (sum(totals[1]) / len(totals[1])) - 1
    assert f'class="badge {"badge-flat" if call == "steady" else "badge-up"}"' in tile
    assert not re.search(r'class="(up|down)"', tile) or call != "steady"
    # Said plainly: both rates a day and the change between them, never a "%/day" (compounding).
    per_day = f"{sum(totals[0]) / len(totals[0]):,.1f} a day against {sum(totals[1]) / len(totals[1]):,.1f} before"
    said = (
        f"{per_day}: steady ({share:+.0%}, within the day-to-day noise"
        if call == "steady"
        else (f"{per_day}: grown {share:.0%}")
    )
    assert said in tile, tile
    assert "/day" not in page


def test_each_agent_row_and_team_row_shows_the_rates_its_verdict_is_called_on(tmp_path):
    serving = tmp_path / "serving.duckdb"
    build_warehouse(serving)
    page = _report(serving, tmp_path)
    with duckdb.connect(str(serving), read_only=True) as conn:
        agents = conn.execute(
            "SELECT agent_id, job_starts_per_day, previous_job_starts_per_day, change FROM bi.agent_usage_periods"
            " WHERE period_index = 0"
        ).fetchall()
        teams = conn.execute(
            "SELECT team_id, active_users_per_day, previous_active_users_per_day, change FROM bi.team_usage_periods"
            " WHERE period_index = 0"
        ).fetchall()
    assert agents and teams
    for kind, key, rows in (("period-row", "agent-id", agents), ("team-row", "team-id", teams)):
        for ident, rate, previous, change in rows:
            row = re.search(rf'<tr class="{kind}" data-{key}="{ident}">(.*?)</tr>', page, re.S).group(1)
            assert f'{rate:,.1f} <span class="muted">({previous:,.1f} before)</span>' in row, row
            assert f'data-call="{change}"' in row
            colour = {"grown": "up", "new": "up", "shrunk": "down", "gone": "down"}.get(change, "flat")
            assert re.findall(r'<span class="(up|down|flat)">', row) in ([], [colour])


def test_a_repository_is_one_row_in_each_scope_that_reports_it_even_renamed_or_made_private(tmp_path):
    serving = tmp_path / "serving.duckdb"
    build_warehouse(serving)
    with duckdb.connect(str(serving)) as conn:
        # beacon (id 8, not in the snapshot) is renamed and made public on the newest day.
        conn.execute(
            "UPDATE core.repository_days SET repo_name = 'beacon-2', repo_visibility = 'public'"
            " WHERE repo_id = 8 AND day = ?",
            [LAST_DAY],
        )
        # The enterprise's report holds the same repositories, with its own counts.
        conn.execute(
            "INSERT INTO core.repository_days SELECT * REPLACE ('enterprise' AS scope, 'acme-corp' AS"
            " scope_name, pull_requests_total_created * 2 AS pull_requests_total_created)"
            " FROM core.repository_days"
        )
    page = _report(serving, tmp_path)
    section = re.search(r"<h2>Repositories</h2>(.*?)</section>", page, re.S).group(1)
    tables = re.findall(r"<caption><strong>([^<]+)</strong></caption>(.*?)</table>", section, re.S)
    assert [scope for scope, _ in tables] == ["enterprise acme-corp", "organization acme"]
    for scope, body in tables:
        rows = re.findall(
            r'<tr class="repository-row"><td[^>]*>([^<]+)</td><td[^>]*>([^<]+)</td>'
            r"<td[^>]*>(\d+)</td>",
            body,
        )
        factor = 2 if scope.startswith("enterprise") else 1
        assert sorted(rows) == [
            ("acme/atlas", "public", str(10 * factor)),
            ("acme/beacon-2", "public", str(4 * factor)),
        ], scope
    assert "each scope has its own table, never added to another" in section


def test_a_period_whose_user_level_days_did_not_all_land_says_how_many_its_users_come_from(tmp_path):
    serving = tmp_path / "serving.duckdb"
    build_warehouse(serving)
    with duckdb.connect(str(serving)) as conn:  # the user-level reports of the last 6 days alone landed
        conn.execute("DELETE FROM core.user_report_days WHERE day < ?", [LAST_DAY - timedelta(days=5)])
        (landed,) = conn.execute(
            "SELECT count(*) FROM bi.report_coverage WHERE user_report AND day > ?", [LAST_DAY - timedelta(days=28)]
        ).fetchone()
    assert landed == 6
    page = _report(serving, tmp_path)
    tiles = re.search(r'<section class="tiles"(.*?)</section>', page, re.S).group(1)
    assert 'users of a single agent app <strong class="short-period">from only 6 of 28 days landed' in tiles
    last_28 = re.search(r"<strong>Last 28 days</strong>(.*?)</caption>", page, re.S).group(1)
    assert "users from only 6 of 28 days landed" in last_28
    # The aggregate report's days all landed: the job starts claim their 28.
    assert "28 reported days" in last_28
