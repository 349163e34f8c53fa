"""The aggregate tier's vendor figures (aggregate.vendor_daily, aggregate.vendor_periods) on what a
run lands from the emulator over loopback: an organization's and its enterprise's user reports and
seats, Claude Code's analytics and Cursor's daily usage. No source-day or period of fewer than k
active people (or 1..k-1 behind its sums) is shown, a hidden row keeps no figure, a shown row's
figures are bi.assistant_usage_daily's counted sums of its group, an agent app's overlap with its
vendor's own row is counted once, and the people no login is known for are counted, never named.
Cost (bi.assistant_cost_daily's, DECIMAL dollars): a shown row's is its group's sum, a hidden row's
is NULL, a person with a cost and no use that day (Cursor's read day) is behind the row's sums, and
two scopes of the same people whose cost differs by one person's are not both shown.
(test_aggregate_tier_differences.py tries every difference of shown figures on random worlds.)"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from datetime import date
from decimal import Decimal
from pathlib import Path

import duckdb
import pytest

from pipelines.publish.aggregate import aggregate_serving
from pipelines.publish.lake import publish
from tests.integration.bi._vendors_landed import SPEND_READ, TODAY, land_vendor_world

FIGURES = (
    "active_people",
    "requests",
    "agent_job_starts",
    "sessions",
    "lines_added",
    "lines_accepted",
    "cost_usd",
    "subscription_estimate_usd",
)
# Each group's counted sums and cost in the full tier, as the tier's rows name them ($grain: day or
# period), and the people behind them: with a nonzero figure or a nonzero cost that day.
COUNTED = """
WITH bounds AS (
    SELECT max(day) AS last_day FROM (SELECT day FROM core.daily_totals UNION ALL SELECT day FROM core.user_report_days)
), rows AS (
    SELECT scope, scope_name, day, source, person, counted, active, requests, agent_job_starts, sessions,
           lines_added, lines_accepted, NULL AS billed, NULL AS amount_usd
    FROM bi.assistant_usage_daily
    UNION ALL BY NAME
    SELECT scope, scope_name, day, source, person, TRUE AS counted, FALSE AS active, billed, amount_usd
    FROM bi.assistant_cost_daily WHERE source <> 'service'
), per_person AS (
    SELECT scope, scope_name,
           CASE WHEN $grain = 'day' THEN day - DATE '1970-01-01' ELSE (last_day - day) // 28 END AS grain, source,
           person, bool_or(counted AND active) AS active,
           sum(requests) FILTER (WHERE counted) AS requests,
           sum(agent_job_starts) FILTER (WHERE counted) AS agent_job_starts,
           sum(sessions) FILTER (WHERE counted) AS sessions, sum(lines_added) FILTER (WHERE counted) AS lines_added,
           sum(lines_accepted) FILTER (WHERE counted) AS lines_accepted,
           sum(amount_usd) FILTER (WHERE billed) AS cost, sum(amount_usd) FILTER (WHERE NOT billed) AS estimate
    FROM rows, bounds
    WHERE $grain = 'day' OR day <= last_day
    GROUP BY ALL
)
SELECT scope, scope_name, grain, source, count(*) FILTER (WHERE active), CAST(sum(requests) AS BIGINT),
       CAST(sum(agent_job_starts) AS BIGINT), CAST(sum(sessions) AS BIGINT), CAST(sum(lines_added) AS BIGINT),
       CAST(sum(lines_accepted) AS BIGINT), sum(cost), sum(estimate),
       count(*) FILTER (WHERE coalesce(requests, 0) <> 0 OR coalesce(agent_job_starts, 0) <> 0
           OR coalesce(sessions, 0) <> 0 OR coalesce(lines_added, 0) <> 0 OR coalesce(lines_accepted, 0) <> 0
           OR coalesce(cost, 0) <> 0 OR coalesce(estimate, 0) <> 0)
FROM per_person
GROUP BY ALL
"""
TABLES = {"vendor_daily": "day - DATE '1970-01-01'", "vendor_periods": "period_index"}


@pytest.fixture(scope="module")
def warehouse(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return land_vendor_world(tmp_path_factory.mktemp("vendor-tier"))


@pytest.fixture(scope="module")
def landed(warehouse: Path) -> Iterator[duckdb.DuckDBPyConnection]:
    with duckdb.connect(str(warehouse)) as conn:
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


def _epoch_day(day: date) -> int:
    """A day as the tier's rows are keyed here (days since 1970-01-01)."""
    return (day - date(1970, 1, 1)).days


def _cost(conn: duckdb.DuckDBPyConnection) -> dict[tuple[object, ...], tuple[Decimal | None, Decimal | None]]:
    """bi.assistant_cost_daily's people's cost per scope, scope_name, day and source: billed, not billed."""
    rows = conn.execute(
        "SELECT scope, scope_name, day - DATE '1970-01-01', source, sum(amount_usd) FILTER (WHERE billed),"
        " sum(amount_usd) FILTER (WHERE NOT billed) FROM bi.assistant_cost_daily WHERE person IS NOT NULL GROUP BY ALL"
    ).fetchall()
    return {tuple(row[:4]): (row[4], row[5]) for row in rows}


def test_a_shown_source_days_cost_is_bi_assistant_cost_dailys_sum_of_it_in_exact_dollars(
    landed: duckdb.DuckDBPyConnection, tmp_path: Path
) -> None:
    cost = _cost(landed)
    with _published(landed, tmp_path, 3) as tier:
        types = dict(
            tier.execute(
                "SELECT column_name, data_type FROM information_schema.columns WHERE table_schema = 'aggregate'"
                " AND table_name IN ('vendor_daily', 'vendor_periods') AND column_name LIKE '%_usd'"
            ).fetchall()
        )
        assert set(types.values()) == {"DECIMAL(38,8)"}, types
        shown = {key: figures for key, figures in _rows(tier, "vendor_daily").items() if figures is not None}
    with_cost = {key: figures[-2:] for key, figures in shown.items() if figures[-2:] != (None, None)}
    assert {key[3] for key in with_cost} == {"claude_code", "cursor"}, "the service's bill is the scope's: not here"
    assert any(key[2] == _epoch_day(SPEND_READ) and key[3] == "cursor" for key in with_cost)
    assert with_cost == {key: cost[key] for key in shown if key in cost}


def test_a_source_day_of_cost_without_k_people_active_shows_no_cost(
    landed: duckdb.DuckDBPyConnection, tmp_path: Path
) -> None:
    """Cursor's read on TODAY, a day of no use: its cost is about people none of whom was active."""
    today = _epoch_day(TODAY)
    cost = {key: amounts for key, amounts in _cost(landed).items() if key[2] == today}
    assert cost and all(amounts[0] for amounts in cost.values())
    with _published(landed, tmp_path, 1) as tier:
        rows = _rows(tier, "vendor_daily")
    assert {key: rows[key] for key in cost} == dict.fromkeys(cost)


def test_two_scopes_of_the_same_people_whose_cost_differs_by_one_persons_are_not_both_shown(
    warehouse: Path, tmp_path: Path
) -> None:
    """The attack: one person with Cursor spend read on a day they did not use it belongs to the
    enterprise only (their seat is the enterprise's, no report of the organization has them). That
    day the organization's Cursor row and the enterprise's count the same active people and the same
    use; only the cost differs, by that person's, which is theirs alone if both were shown."""
    copy = tmp_path / "attacked.duckdb"
    shutil.copy(warehouse, copy)
    with duckdb.connect(str(copy)) as conn:
        found = conn.execute(
            "SELECT min(c.person) FROM bi.assistant_cost_daily AS c WHERE c.source = 'cursor' AND c.day = ?"
            " AND c.scope = 'organization' AND c.person_kind = 'login' AND c.amount_usd > 0 AND NOT EXISTS ("
            " SELECT 1 FROM bi.assistant_usage_daily AS u WHERE u.source = 'cursor' AND u.person = c.person"
            " AND u.day = c.day)",
            [SPEND_READ],
        ).fetchone()
        enterprises = conn.execute("SELECT DISTINCT enterprise FROM core.organization_enterprise_days").fetchall()
        assert found is not None and found[0] is not None and len(enterprises) == 1
        person, enterprise = found[0], enterprises[0][0]
        conn.execute(
            "INSERT INTO snapshots.enterprise_seats BY NAME SELECT snapshot_day, ? AS enterprise, user_id,"
            " 'direct' AS granted_through, 'test' AS granted_by, login, assignee_email"
            " FROM snapshots.seats WHERE bi.login_key(login) = ?",
            [enterprise, person],
        )
        conn.execute("DELETE FROM snapshots.seats WHERE bi.login_key(login) = ?", [person])
        conn.execute(
            "DELETE FROM core.user_daily_totals WHERE scope = 'organization' AND bi.login_key(user_login) = ?", [person]
        )
        cost = _cost(conn)
        read = _epoch_day(SPEND_READ)
        org = next(key for key in cost if key[0] == "organization" and key[2:] == (read, "cursor"))
        ent = next(key for key in cost if key[0] == "enterprise" and key[2:] == (read, "cursor"))
        (ent_cost, _), (org_cost, _) = cost[ent], cost[org]
        assert ent_cost is not None and org_cost is not None
        assert ent_cost > org_cost, "the enterprise's cost holds the person's, the organization's not"
        usage = _counted(conn, "vendor_daily")
        assert usage[org][:6] == usage[ent][:6], "the same active people and use"
        with _published(conn, tmp_path, 3) as tier:
            rows = _rows(tier, "vendor_daily")
    assert rows[org] is None, "beside the enterprise's, the difference would be one person's cost"
    shown = rows[ent]
    assert shown is not None and shown[-2] == ent_cost
