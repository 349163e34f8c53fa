"""`metrics-etl mcp` on a demo's home, through the MCP SDK's own stdio client, as an assistant's
client starts it: it lists its tools and the catalog's metrics, answers agent adoption of the
last 28 days with bi.agent_usage_periods' numbers, compares two periods with the page's call,
and refuses a wrong question in one line naming what is accepted, answering on after it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import duckdb
import mcp_types as types
import pytest
from mcp.client.session import ClientSession

from pipelines.metrics.catalog import METRICS
from tests.integration.mcp._client import answer, refusal, talk, text
from tests.integration.mcp.conftest import Home

# The first test of a run builds the demo's home (conftest.py): minutes on a shared 2-core machine.
pytestmark = pytest.mark.timeout(1800)

AGGREGATE = sorted(name for name, metric in METRICS.items() if metric.tier == "aggregate")
PERIODS_SQL = (
    "SELECT scope, scope_name, agent_id, period_start, period_end, agent_users, compared_days, "
    "previous_compared_days, job_starts_per_day, previous_job_starts_per_day, change "
    "FROM bi.agent_usage_periods WHERE period_index = $1"
)


def _periods(home: Home, index: int) -> dict[tuple[str, str, str], tuple[Any, ...]]:
    return {(scope, name, agent): rest for scope, name, agent, *rest in home.sql(PERIODS_SQL, index)}


def test_it_lists_its_tools_and_the_catalogs_metrics_of_the_aggregate_tier(home: Home, tmp_path: Path) -> None:
    async def script(session: ClientSession) -> tuple[types.ListToolsResult, types.CallToolResult]:
        return await session.list_tools(), await session.call_tool("list_metrics", {})

    tools, listed = talk(home, script, errlog=tmp_path / "stderr")
    assert [tool.name for tool in tools.tools] == [
        "list_metrics",
        "list_dimensions",
        "describe_metric",
        "query_metric",
        "compare_periods",
    ]
    metrics = answer(listed)["metrics"]
    assert sorted(m["name"] for m in metrics) == AGGREGATE
    assert all(m["definition"] and m["gap_rule"] and m["finality_rule"] for m in metrics)
    assert text(listed).splitlines()[0] == f"{len(AGGREGATE)} metrics:"


def test_agent_adoption_of_the_last_28_days_is_bi_agent_usage_periods(home: Home, tmp_path: Path) -> None:
    async def script(session: ClientSession) -> tuple[types.CallToolResult, types.CallToolResult]:
        period = await session.call_tool("query_metric", {"metric": "agent_adoption"})
        return period, await session.call_tool("query_metric", {"metric": "agent_users"})

    period, daily = (answer(result) for result in talk(home, script, errlog=tmp_path / "stderr"))
    bi = _periods(home, 0)
    rows = {(r["scope"], r["scope_name"], r["agent"]): r for r in period["rows"]}
    assert set(rows) == set(bi)
    for key, row in rows.items():
        start, end, users = bi[key][:3]
        assert (row["period_start"], row["period_end"]) == (start.isoformat(), end.isoformat())
        # A row the tier hid under k keeps its place with no figure; every other is the view's.
        assert row["agent_adoption"] == (None if row["suppressed"] else users), key
    assert period["suppressed"]["count"] == sum(row["suppressed"] for row in rows.values())
    assert period["metric"]["definition"] == METRICS["agent_adoption"].definition
    (newest,) = home.sql("SELECT max(period_end) FROM bi.agent_usage_periods")[0]
    assert period["freshness"]["newest_day"] == newest.isoformat()
    provisional = home.sql("SELECT DISTINCT day FROM bi.report_coverage WHERE NOT is_final ORDER BY day")
    assert period["provisional"] == [day.isoformat() for (day,) in provisional]
    # Day by day, the last 28 days: most app-days have k users or more, so most are shown.
    by_day = {
        (scope, name, day.isoformat(), agent): users
        for scope, name, day, agent, users in home.sql(
            "SELECT scope, scope_name, day, agent_id, agent_users FROM bi.agent_usage_daily WHERE day > $1 - 28",
            newest,
        )
    }
    shown = [r for r in daily["rows"] if not r["suppressed"] and r["agent"] is not None]
    assert len(shown) > len(daily["rows"]) / 2
    assert {
        (r["scope"], r["scope_name"], r["day"], r["agent"]): r["agent_users"] for r in shown
    }.items() <= by_day.items()


# The page's change rule (bi.change_call) over each app's days the aggregate tier shows: the final
# days of the scope holding a figure of any app, less those the app's row was hidden on; an app
# absent from one of them had no job starts. Values are the full tier's, which the tier equals.
_PAGE_RULE_OVER_SHOWN_DAYS = """
WITH tier AS (
    SELECT scope, scope_name, day, agent_id, suppressed, agent_job_starts FROM tier.aggregate.agent_daily
), days AS (
    SELECT DISTINCT t.scope, t.scope_name, t.day, CASE WHEN t.day <= $first_end THEN 1 ELSE 2 END AS period
    FROM tier AS t
    JOIN bi.report_coverage AS c USING (scope, scope_name, day)
    WHERE c.is_final AND (t.agent_job_starts IS NOT NULL OR t.suppressed)
      AND (t.day BETWEEN $first_end - 27 AND $first_end OR t.day BETWEEN $second_end - 27 AND $second_end)
), cells AS (
    SELECT a.scope, a.scope_name, a.agent_id, d.period, CAST(coalesce(u.agent_job_starts, 0) AS DOUBLE) AS v
    FROM (SELECT DISTINCT scope, scope_name, agent_id FROM tier) AS a
    JOIN days AS d USING (scope, scope_name)
    LEFT JOIN tier AS h
        ON (h.scope, h.scope_name, h.agent_id, h.day) = (a.scope, a.scope_name, a.agent_id, d.day)
    LEFT JOIN bi.agent_usage_daily AS u
        ON (u.scope, u.scope_name, u.agent_id, u.day) = (a.scope, a.scope_name, a.agent_id, d.day)
    WHERE h.day IS NULL OR NOT (h.suppressed OR h.agent_job_starts IS NULL)
)
SELECT scope, scope_name, agent_id, count(*) FILTER (WHERE period = 1), count(*) FILTER (WHERE period = 2),
       bi.change_call(sum(v) FILTER (WHERE period = 2), sum(v * v) FILTER (WHERE period = 2),
                      count(*) FILTER (WHERE period = 2), sum(v) FILTER (WHERE period = 1),
                      sum(v * v) FILTER (WHERE period = 1), count(*) FILTER (WHERE period = 1))
FROM cells
GROUP BY ALL
"""


def test_two_periods_compared_get_the_pages_call(home: Home, tmp_path: Path) -> None:
    now, before = _periods(home, 0), _periods(home, 1)
    first, second = next(iter(before.values()))[1], next(iter(now.values()))[1]

    async def script(session: ClientSession) -> types.CallToolResult:
        arguments = {
            "metric": "agent_job_starts_28d",
            "first": str(first),
            "second": str(second),
            "group_by": ["agent"],
        }
        return await session.call_tool("compare_periods", arguments)

    got = answer(talk(home, script, errlog=tmp_path / "stderr"))
    assert (got["first"]["end"], got["second"]["end"]) == (str(first), str(second))
    with duckdb.connect(str(home.path / "serving.duckdb"), read_only=True) as conn:
        conn.execute(f"ATTACH '{home.path / 'aggregate' / 'serving-aggregate.duckdb'}' AS tier (READ_ONLY)")
        rule = conn.execute(_PAGE_RULE_OVER_SHOWN_DAYS, {"first_end": first, "second_end": second}).fetchall()
    page = {(scope, name, agent): rest for scope, name, agent, *rest in rule}
    assert {(r["scope"], r["scope_name"], r["agent"]) for r in got["rows"]} == set(page)
    for row in got["rows"]:
        key = (row["scope"], row["scope_name"], row["agent"])
        assert [row["first_days"], row["second_days"], row["call"]] == page[key], row
        compared, previous, per_day, previous_per_day, call = now[key][3:]
        if (row["first_days"], row["second_days"]) == (previous, compared):
            # The tier showed every day the page weighs: the page's own rates and call.
            assert (row["first_per_day"], row["second_per_day"]) == pytest.approx((previous_per_day, per_day))
            assert row["call"] == call, row
    assert got["rows"] and got["rule"].startswith("the page's change rule")


def test_a_wrong_question_is_one_line_naming_what_is_accepted_and_the_server_answers_on(
    home: Home, tmp_path: Path
) -> None:
    # The tier's scopes, and scope `vendor` of each vendor counting people no login is known for.
    ((scopes,),) = home.sql(
        "SELECT string_agg(DISTINCT scope || ':' || scope_name, ', ') FROM (SELECT scope, scope_name"
        " FROM bi.agent_usage_periods UNION"
        " SELECT scope, scope_name FROM bi.assistant_usage_daily WHERE scope = 'vendor')"
    )
    asked: list[tuple[str, dict[str, Any]]] = [
        ("query_metric", {"metric": "agents"}),
        ("describe_metric", {"metric": "adoption"}),
        ("query_metric", {"metric": "agent_adoption", "group_by": ["repository"]}),
        ("query_metric", {"metric": "agent_adoption", "start": "2026-13-01"}),
        ("query_metric", {"metric": "agent_users", "start": "2026-11-20", "end": "2026-11-01"}),
        ("compare_periods", {"metric": "agent_job_starts_28d", "first": "2026-10-30", "second": "last month"}),
        ("query_metric", {"metric": "agent_adoption", "scope": "organization:nobody"}),
        ("query_metric", {"metric": "agent_adoption", "sql": "SELECT * FROM bi.agent_usage_periods"}),
        ("list_dimensions", {"group_by": ["user"]}),
    ]

    async def script(session: ClientSession) -> tuple[list[types.CallToolResult], types.CallToolResult]:
        refused = [await session.call_tool(name, arguments) for name, arguments in asked]
        return refused, await session.call_tool("query_metric", {"metric": "active_users_28d"})

    errlog = tmp_path / "stderr"
    refused, after = talk(home, script, errlog=errlog)
    lines = [refusal(result) for result in refused]
    accepted = ", ".join(AGGREGATE)
    assert lines == [
        f"unknown metric 'agents': accepted: {accepted}",
        f"unknown metric 'adoption': accepted: {accepted}",
        "unknown dimension 'repository': accepted: agent, cost_center, scope, source, team",
        "malformed range: start '2026-13-01' is not a day: accepted: YYYY-MM-DD",
        "malformed range 2026-11-20..2026-11-01: the first day must not be after the last",
        "malformed range: second 'last month' is not a day: accepted: YYYY-MM-DD",
        f"unknown scope 'organization:nobody': accepted: {lines[6].split('accepted: ')[1]}",
        "query_metric takes no argument 'sql': it takes metric, scope, start, end, period, group_by, filters",
        "list_dimensions takes no argument 'group_by': it takes none",
    ]
    assert set(lines[6].split("accepted: ")[1].split(", ")) == set(scopes.split(", "))
    assert answer(after)["rows"]
    assert "Traceback" not in errlog.read_text()


def test_every_answer_carries_its_definition_gaps_provisional_days_hidden_rows_and_freshness(
    home: Home, tmp_path: Path
) -> None:
    async def script(session: ClientSession) -> list[types.CallToolResult]:
        return [
            await session.call_tool("query_metric", {"metric": name, "scope": "organization:acme"})
            for name in AGGREGATE
        ]

    for result in talk(home, script, errlog=tmp_path / "stderr"):
        got = answer(result)
        assert {"metric", "rows", "gaps", "provisional", "suppressed", "freshness", "truncated"} <= set(got)
        assert got["metric"]["definition"] and got["freshness"]["published_at"]
        assert got["suppressed"]["count"] == sum(1 for row in got["rows"] if row.get("suppressed")), got["metric"]
        assert json.loads(json.dumps(got)) == got  # JSON as it came: nothing a client cannot read
