"""The aggregate tier's vendor figures (aggregate.vendor_daily, aggregate.vendor_periods) on what a
run lands from the emulator over loopback: an organization's and its enterprise's user reports and
seats, Claude Code's analytics and Cursor's daily usage. No source-day or period of fewer than k
active people (or 1..k-1 behind its sums) is shown, a hidden row keeps no figure, a shown row's
figures are bi.assistant_usage_daily's counted sums of its group, an agent app's overlap with its
vendor's own row is counted once, and the people no login is known for are counted, never named.
(test_aggregate_tier_differences.py tries every difference of shown figures on random worlds.)"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import duckdb
import pytest

from pipelines.publish.aggregate import aggregate_serving
from pipelines.publish.lake import publish
from tests.integration.bi._vendors_landed import land_vendor_world

FIGURES = ("active_people", "requests", "agent_job_starts", "sessions", "lines_added", "lines_accepted")
# Each group's counted sums in the full tier, as the tier's rows name them ($grain: day or period).
COUNTED = """
WITH bounds AS (
    SELECT max(day) AS last_day FROM (SELECT day FROM core.daily_totals UNION ALL SELECT day FROM core.user_report_days)
)
SELECT scope, scope_name, CASE WHEN $grain = 'day' THEN day - DATE '1970-01-01' ELSE (last_day - day) // 28 END,
       source, count(DISTINCT person) FILTER (WHERE counted AND active),
       CAST(sum(requests) FILTER (WHERE counted) AS BIGINT),
       CAST(sum(agent_job_starts) FILTER (WHERE counted) AS BIGINT),
       CAST(sum(sessions) FILTER (WHERE counted) AS BIGINT), CAST(sum(lines_added) FILTER (WHERE counted) AS BIGINT),
       CAST(sum(lines_accepted) FILTER (WHERE counted) AS BIGINT),
       count(DISTINCT person) FILTER (WHERE counted AND (coalesce(requests, 0) <> 0
           OR coalesce(agent_job_starts, 0) <> 0 OR coalesce(sessions, 0) <> 0 OR coalesce(lines_added, 0) <> 0
           OR coalesce(lines_accepted, 0) <> 0))
FROM bi.assistant_usage_daily, bounds
WHERE day <= last_day
GROUP BY ALL
"""
TABLES = {"vendor_daily": "day - DATE '1970-01-01'", "vendor_periods": "period_index"}


@pytest.fixture(scope="module")
def landed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[duckdb.DuckDBPyConnection]:
    with duckdb.connect(str(land_vendor_world(tmp_path_factory.mktemp("vendor-tier")))) as conn:
        yield conn


def _published(conn: duckdb.DuckDBPyConnection, root: Path, k: int) -> duckdb.DuckDBPyConnection:
    serving = root / "serving.duckdb"
    publish(conn, lake=root / "lake", serving=serving, k=k, full=True)
    return duckdb.connect(str(aggregate_serving(serving)), read_only=True)


def _rows(tier: duckdb.DuckDBPyConnection, table: str) -> dict[tuple[object, ...], tuple[object, ...]]:
    """Each row's figures (None when suppressed) by scope, scope_name, day or period, source."""
    rows = tier.execute(
        f"SELECT scope, scope_name, {TABLES[table]}, source, suppressed, {', '.join(FIGURES)} FROM aggregate.{table}"
    ).fetchall()
    return {tuple(row[:4]): (None if row[4] else tuple(row[5:])) for row in rows}


def _counted(conn: duckdb.DuckDBPyConnection, table: str) -> dict[tuple[object, ...], tuple[object, ...]]:
    grain = "day" if table == "vendor_daily" else "period"
    return {tuple(row[:4]): tuple(row[4:]) for row in conn.execute(COUNTED, {"grain": grain}).fetchall()}


@pytest.mark.parametrize("k", [3, 5])
def test_no_source_of_fewer_than_k_people_is_shown_and_a_hidden_one_keeps_no_figure(landed, tmp_path, k):
    with _published(landed, tmp_path, k) as tier:
        for table in TABLES:
            rows, counted = _rows(tier, table), _counted(landed, table)
            assert set(rows) == set(counted), "every group is a row, shown or not"
            for key, shown in rows.items():
                active, figured = counted[key][0], counted[key][-1]
                assert shown is None or (active >= k and not 1 <= figured < k), key
            leaked = " OR ".join(f"{f} IS NOT NULL" for f in FIGURES)
            assert tier.execute(
                f"SELECT count(*) FROM aggregate.{table} WHERE suppressed AND ({leaked})"
            ).fetchone() == (0,)
            assert None in rows.values(), f"{table} hides some group under k"
            # The service's rows are hidden at 5 here: its count and the lines active on any surface are 3 apart.
            assert {key[3] for key, shown in rows.items() if shown} >= {"claude_code", "cursor"}


def test_a_shown_rows_figures_are_bi_assistant_usage_dailys_counted_sums(landed, tmp_path):
    with _published(landed, tmp_path, 3) as tier:
        for table in TABLES:
            counted = _counted(landed, table)
            shown = {key: figures for key, figures in _rows(tier, table).items() if figures is not None}
            assert {key[3] for key in shown} >= {"service", "claude_code", "cursor"}
            assert shown == {key: counted[key][:-1] for key in shown}


def test_an_agent_app_beside_its_vendors_own_row_is_counted_once(landed, tmp_path):
    """The Claude agent app's users who used Claude Code directly that day are in Claude Code's
    row, not the app's: the app's active people are its users less them."""
    overlaps = landed.execute(
        "SELECT scope, scope_name, day - DATE '1970-01-01', count(DISTINCT person) FROM bi.assistant_usage_daily"
        " WHERE source = 'agent:2246796' AND NOT counted GROUP BY ALL"
    ).fetchall()
    assert overlaps, "the emulator's Claude agent users use Claude Code too"
    with _published(landed, tmp_path, 1) as tier:
        rows = _rows(tier, "vendor_daily")
    for scope, name, day, both in overlaps:
        users = landed.execute(
            "SELECT count(DISTINCT person) FILTER (WHERE active) FROM bi.assistant_usage_daily"
            " WHERE source = 'agent:2246796' AND scope = ? AND scope_name = ? AND day - DATE '1970-01-01' = ?",
            [scope, name, day],
        ).fetchone()[0]
        app = rows[(scope, name, day, "agent:2246796")]
        assert app is not None and app[0] == users - both


def test_people_no_login_is_known_for_are_counted_under_scope_vendor_and_never_named(landed, tmp_path):
    emails = {e for (e,) in landed.execute("SELECT DISTINCT unnest(emails) FROM bi.assistant_usage_daily").fetchall()}
    unmapped = landed.execute(
        "SELECT day - DATE '1970-01-01', source, count(DISTINCT person) FILTER (WHERE active)"
        " FROM bi.assistant_usage_daily WHERE person_kind = 'email' GROUP BY ALL"
    ).fetchall()
    assert unmapped and emails
    with _published(landed, tmp_path, 1) as tier:
        rows = _rows(tier, "vendor_daily")
        for day, source, people in unmapped:
            shown = rows[("vendor", source, day, source)]
            assert shown is not None and shown[0] >= people
        for table in TABLES:
            columns = [c for (c, *_) in tier.execute(f"DESCRIBE aggregate.{table}").fetchall()]
            values = {
                str(value)
                for column in columns
                for (value,) in tier.execute(f'SELECT DISTINCT "{column}" FROM aggregate.{table}').fetchall()
            }
            assert not values & emails
            assert not [v for v in values if "@" in v]
