"""The summary after `metrics-etl run` and `demo`: its headline, teams, seats and the queries it prints."""

import contextlib
import io
from datetime import timedelta

import duckdb

from pipelines.bi.summary import _INACTIVE_SEATS_QUERY, _TEAMS_QUERY, _team_lines, summarize
from tests.integration.bi._warehouse import LAST_DAY, build_warehouse


def test_the_summary_headline_names_its_scope_and_compares_per_final_day_with_agent_data(tmp_path):
    warehouse = tmp_path / "w.duckdb"
    expected = build_warehouse(warehouse)
    out = io.StringIO()
    summarize(warehouse, serving=tmp_path / "serving.duckdb", out=out)
    newer = LAST_DAY - timedelta(days=27)
    total = sum(v for (d, _), v in expected.job_starts.items() if d >= newer)
    compared = {d for (d, _) in expected.job_starts if d >= newer and d not in expected.provisional_days}
    rate = sum(v for (d, _), v in expected.job_starts.items() if d in compared) / len(compared)
    previous = sum(v for (d, _), v in expected.job_starts.items() if d < newer) / 25
    (headline,) = [line for line in out.getvalue().splitlines() if line.startswith("headline")]
    # -7% on days this noisy is within the noise: the one change rule calls it steady.
    assert headline.startswith(
        f"headline, organization acme, last 28 days ({newer} .. {LAST_DAY}): {total:,} agent job starts "
        f"(3 provisional days not counted); {rate:,.1f} a day over {len(compared)} final days with agent data "
        f"against {previous:,.1f} a day over 25 final days in the 28 days before: "
        f"steady ({(rate / previous - 1) * 100:+.0f}%, within the day-to-day noise: 95% interval -"
    )
    assert "landed" not in headline  # every day of the period is
    assert "job starts of organization acme, every day landed:" in out.getvalue()


def test_every_command_the_summary_prints_is_metrics_etl_as_the_reader_runs_it(tmp_path):
    warehouse = tmp_path / "w.duckdb"
    build_warehouse(warehouse)
    out = io.StringIO()
    command = "./.venv/bin/metrics-etl --home /tmp/demo"
    summarize(warehouse, serving=tmp_path / "serving.duckdb", out=out, command=command)
    shown = [line for line in out.getvalue().splitlines() if " sql " in line]
    assert shown and all(f'{command} sql "' in line for line in shown), shown


def test_the_summary_s_team_lines_keep_their_columns_whatever_the_scope_s_name():
    teams = [
        ("enterprise", "acme-corp", "platform-engineering-and-tools", 120, 80, "grown", 61.5, 40.2, 28, None),
        ("enterprise", "acme-corp", "web", 40, 30, None, 20.0, None, 28, None),
        ("organization", "acme", "mobile", 1200, 7, "steady", 3.1, 3.3, 28, None),
    ]
    lines = _team_lines(teams, command="metrics-etl").splitlines()[2:]
    assert len(lines) == 3
    for column in ("members", "active"):
        assert len({line.index(column) for line in lines}) == 1, "\n".join(lines)
    assert len({line.index(slug) for line, (_, _, slug, *_) in zip(lines, teams, strict=True)}) == 1


def test_the_summary_says_team_active_users_are_ours_from_user_lines_on_any_surface():
    teams = [("organization", "acme", "web", 40, 30, None, 20.0, None, 28, None)]
    head = _team_lines(teams, command="metrics-etl").splitlines()[1]
    assert "by active users (any surface, from user lines; a user on two teams counts in both)" in head


def _only_the_last_day(warehouse):
    """The warehouse as a first one-day run leaves it: every fact of a day before LAST_DAY gone."""
    from pipelines.warehouse.rollups import rebuild_rollups

    with duckdb.connect(str(warehouse)) as conn:
        tables = conn.execute(
            "SELECT DISTINCT table_name FROM duckdb_columns() WHERE schema_name = 'core' AND column_name = 'day' "
            "AND table_name IN (SELECT table_name FROM duckdb_tables() WHERE schema_name = 'core')"
        ).fetchall()
        for (table,) in tables:
            conn.execute(f'DELETE FROM core."{table}" WHERE day < ?', [LAST_DAY])
        rebuild_rollups(conn)


def test_a_period_with_fewer_days_landed_than_it_spans_says_how_many_in_the_headline_and_the_teams(tmp_path):
    warehouse = tmp_path / "w.duckdb"
    build_warehouse(warehouse)
    _only_the_last_day(warehouse)
    out = io.StringIO()
    summarize(warehouse, serving=tmp_path / "serving.duckdb", out=out, command="metrics-etl")
    text = out.getvalue()
    start = LAST_DAY - timedelta(days=27)
    (headline,) = [line for line in text.splitlines() if line.startswith("headline")]
    assert headline.startswith(
        f"headline, organization acme, last 28 days ({start} .. {LAST_DAY}; only 1 of its 28 days landed): "
    )
    teams = text.split("teams in the last 28 days", 1)[1].splitlines()
    assert teams[1] == (
        f"  organization acme: only 1 day of the 28 landed: the figures cover it alone "
        f"(`metrics-etl run --from {start}` lands the rest)"
    )
    assert all("no comparison" in line for line in teams[2:4]), teams


def test_each_team_line_shows_the_active_users_a_day_its_verdict_compares(tmp_path):
    warehouse = tmp_path / "w.duckdb"
    build_warehouse(warehouse)
    out = io.StringIO()
    summarize(warehouse, serving=tmp_path / "serving.duckdb", out=out)
    with duckdb.connect(str(warehouse), read_only=True) as conn:
        expected = conn.execute(
            "SELECT team_slug, active_users_per_day, previous_active_users_per_day, change FROM bi.team_usage_periods "
            "WHERE period_index = 0"
        ).fetchall()
    lines = out.getvalue().split("teams in the last 28 days", 1)[1].splitlines()
    assert "landed" not in "\n".join(lines)  # both periods are whole
    for slug, per_day, before, change in expected:
        (line,) = [line for line in lines if f" {slug} " in line]
        assert line.endswith(
            f"{per_day:,.1f} active a day against {before:,.1f} before: {change} "
            f"({per_day / before - 1:+.0%}, within the day-to-day noise)"
        ), line


def test_the_printed_follow_up_queries_fit_80_columns_and_keep_their_key_columns(tmp_path):
    """What the summary prints to type next answers, at an 80-column terminal, with every column it selects."""
    warehouse = tmp_path / "w.duckdb"
    build_warehouse(warehouse)
    with duckdb.connect(str(warehouse), read_only=True) as conn:
        for query, keys in (
            (_TEAMS_QUERY, ["scope_name", "team_slug", "members", "active_users", "change"]),
            (_INACTIVE_SEATS_QUERY, ["org_login", "login", "days_inactive"]),
        ):
            relation = conn.sql(query)
            assert relation.fetchall(), query
            shown = io.StringIO()
            with contextlib.redirect_stdout(shown):
                relation.show(max_width=80)
            header = {cell.strip() for cell in shown.getvalue().splitlines()[1].split("│")}
            assert set(keys) <= header and "shown)" not in shown.getvalue(), shown.getvalue()
            assert "ORDER BY" in query
