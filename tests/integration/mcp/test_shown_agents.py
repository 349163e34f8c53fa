"""`metrics-etl mcp` where the aggregate tier shows agent adoption: on the demo's small world every
agent period is hidden under k, so there its answers equal bi.agent_usage_periods only in hiding.
Here the home is the hand-built warehouse of known numbers (tests/integration/bi/_warehouse.py: six
users, two or more on every app-day), published by the real publish at k = 2, and the SDK's own
stdio client asks `metrics-etl mcp` on it: each app's users, job starts and sessions of the last
28 days are the full tier's bi.agent_usage_periods, and two periods compared get the page's call
for every app (its rows as the page reads them: page/select_agent_periods.sql, bi.change_call)."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

import duckdb
import mcp_types as types
import pytest
from mcp.client.session import ClientSession

from pipelines.page._periods import PeriodRow, period_rows
from pipelines.warehouse.sql import run_sql
from tests.integration.bi._warehouse import LAST_DAY, SCOPE, SCOPE_NAME
from tests.integration.mcp._client import answer, talk
from tests.integration.mcp.conftest import Home, clean_env
from tests.integration.metrics.conftest import make_home

PREVIOUS_END = LAST_DAY - timedelta(days=28)
# Each figure of an app's 28-day period the catalog answers, and its column of bi.agent_usage_periods.
FIGURES = {
    "agent_adoption": "agent_users",
    "agent_job_starts_28d": "agent_job_starts",
    "agent_sessions_28d": "agent_sessions",
}


@pytest.fixture(scope="module")
def known(tmp_path_factory: pytest.TempPathFactory) -> Home:
    root = tmp_path_factory.mktemp("mcp-known")
    for folder in ("home", "cwd"):
        (root / folder).mkdir()
    make_home(root / "home")  # the warehouse published as a run publishes it: lake, serving database, tiers
    return Home(path=root / "home", cwd=root / "cwd", env=clean_env(XDG_DATA_HOME=str(root / "share")))


def _latest(home: Home) -> dict[str, dict[str, Any]]:
    """bi.agent_usage_periods' last 28 days, per app, on the full tier (the serving database)."""
    columns = ("agent_id", "period_start", "period_end", *FIGURES.values())
    found = home.sql(
        # The columns are this file's names; the values are bound.
        f"SELECT {', '.join(columns)} FROM bi.agent_usage_periods "
        "WHERE scope = $1 AND scope_name = $2 AND period_index = 0",
        SCOPE,
        SCOPE_NAME,
    )
    return {str(row[0]): dict(zip(columns, row, strict=True)) for row in found}


def _page(home: Home) -> dict[str, PeriodRow]:
    """The latest period's rows of the page's period-over-period table, read as the page reads them."""
    with duckdb.connect(str(home.path / "serving.duckdb"), read_only=True) as conn:
        rows = period_rows(run_sql(conn, "page/select_agent_periods.sql", scope=SCOPE, scope_name=SCOPE_NAME))
    return {row.agent_id: row for row in rows if row.period_index == 0}


def _by_app(result: types.CallToolResult) -> dict[str, dict[str, Any]]:
    rows = answer(result)["rows"]
    assert {(r["scope"], r["scope_name"]) for r in rows} == {(SCOPE, SCOPE_NAME)}
    return {r["agent"]: r for r in rows}


def test_each_app_s_users_job_starts_and_sessions_of_the_last_28_days_are_bi_agent_usage_periods(
    known: Home, tmp_path: Path
) -> None:
    async def script(session: ClientSession) -> list[types.CallToolResult]:
        return [await session.call_tool("query_metric", {"metric": name, "group_by": ["agent"]}) for name in FIGURES]

    answers = talk(known, script, errlog=tmp_path / "stderr")
    view = _latest(known)
    for (metric, column), result in zip(FIGURES.items(), answers, strict=True):
        rows = _by_app(result)
        assert set(rows) == set(view), metric
        shown = {agent: row[metric] for agent, row in rows.items() if not row["suppressed"]}
        # Every figure the tier shows is the view's; a row it hid is one the view has, with no figure.
        assert len(shown) >= 2, metric
        assert shown == {agent: view[agent][column] for agent in shown}, metric
        assert all(rows[agent][metric] is None for agent in set(rows) - set(shown)), metric
        for agent, row in rows.items():
            assert row["period_start"] == view[agent]["period_start"].isoformat(), metric
            assert row["period_end"] == view[agent]["period_end"].isoformat() == LAST_DAY.isoformat(), metric


def test_two_periods_compared_get_the_page_s_call_for_every_app(known: Home, tmp_path: Path) -> None:
    async def script(session: ClientSession) -> types.CallToolResult:
        arguments = {"metric": "agent_adoption", "first": str(PREVIOUS_END), "second": str(LAST_DAY)}
        return await session.call_tool("compare_periods", arguments)

    rows = _by_app(talk(known, script, errlog=tmp_path / "stderr"))
    page = _page(known)
    assert set(rows) == set(page)
    for agent, row in rows.items():
        said = page[agent]
        assert row["call"] == said.change, agent
        assert (row["first_days"], row["second_days"]) == (said.previous_compared_days, said.compared_days), agent
        assert (row["first_per_day"], row["second_per_day"]) == pytest.approx(
            (said.previous_job_starts_per_day, said.job_starts_per_day)
        ), agent
        assert (row["change_low"], row["change_high"]) == pytest.approx((said.change_low, said.change_high)), agent
    # Each call the rule can make, so the equality above is no agreement of Nones.
    assert sorted(row["call"] for row in rows.values()) == ["gone", "grown", "new", "shrunk"]
