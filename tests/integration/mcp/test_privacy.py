"""The privacy tier held by the server, attacked as an assistant could: in the default mode a
person's figures are asked for every way the tools allow (a per-person metric, a grouping or a
filter by user, login, pseudonym or id, a scope that is a login, a team of fewer than k people)
and none answers; no answer holds a login, a user id or a pseudonym. At the pseudonymous tier
the per-person metrics answer by pseudonym, never by login or id."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest
from mcp.client.session import ClientSession

from pipelines.metrics.catalog import METRICS
from tests.integration.mcp._client import answer, refusal, talk
from tests.integration.mcp.conftest import Home, K

# The first test of a run builds the demo's home (conftest.py): minutes on a shared 2-core machine.
pytestmark = pytest.mark.timeout(1800)

PER_PERSON = sorted(name for name, metric in METRICS.items() if metric.tier == "pseudonymous")


def _person(home: Home) -> tuple[str, str]:
    """A login and user id of someone active on many days: the likeliest to be asked about."""
    ((login, user_id),) = home.sql(
        "SELECT user_login, CAST(user_id AS VARCHAR) FROM core.user_daily_totals "
        "GROUP BY ALL ORDER BY count(*) DESC, user_login LIMIT 1",
        db="warehouse.duckdb",
    )
    return str(login), str(user_id)


def _pseudonyms(home: Home) -> set[str]:
    rows = home.sql(
        "SELECT DISTINCT pseudonym FROM pseudonymous.user_daily", db="pseudonymous/serving-pseudonymous.duckdb"
    )
    return {str(p) for (p,) in rows}


def _words(text: str) -> set[str]:
    return set(re.findall(r"[\w.-]+", text))


def _named(result: types.CallToolResult, names: set[str], asked: dict[str, Any] | None = None) -> set[str]:
    """Which of `names` a result holds anywhere (a value of its structured content, a word of its
    text) that the question did not give it: a refusal may say back what it was asked."""
    said = json.dumps(result.structured_content) + " ".join(
        block.text for block in result.content if isinstance(block, types.TextContent)
    )
    return (names & _words(said)) - _words(json.dumps(asked or {}))


def test_in_the_default_mode_no_question_gets_a_persons_figures(home: Home, tmp_path: Path) -> None:
    login, user_id = _person(home)
    (pseudonym, *_) = sorted(_pseudonyms(home))
    small = home.sql(
        "SELECT scope, scope_name, CAST(team_id AS VARCHAR), min(day), max(day) FROM bi.team_usage_daily "
        "WHERE active_users BETWEEN 1 AND $1 GROUP BY ALL ORDER BY ALL LIMIT 1",
        K - 1,
    )
    assert small, "the demo has no team day of fewer than k active people to ask about"
    ((scope, scope_name, team, first, last),) = small
    team_of_few = {
        "metric": "team_active_users",
        "scope": f"{scope}:{scope_name}",
        "start": first.isoformat(),
        "end": last.isoformat(),
        "filters": {"team": team},
    }
    refused_outright: list[tuple[str, dict[str, Any]]] = [
        *[("query_metric", {"metric": name}) for name in PER_PERSON],
        *[("describe_metric", {"metric": name}) for name in PER_PERSON],
        ("compare_periods", {"metric": PER_PERSON[0], "first": "2026-10-30", "second": "2026-11-27"}),
        *[("query_metric", {"metric": "interactions", "group_by": [by]}) for by in ("user", "login", "pseudonym")],
        *[("query_metric", {"metric": "interactions", "group_by": [by]}) for by in ("user_id", "user_login")],
        *[
            ("query_metric", {"metric": "interactions", "filters": {by: value}})
            for by, value in (("user", login), ("login", login), ("user_id", user_id), ("user", pseudonym))
        ],
        ("query_metric", {"metric": "team_active_users", "group_by": ["team", "user"]}),
        *[("query_metric", {"metric": "interactions", "scope": scope}) for scope in (login, f"user:{login}")],
        ("query_metric", {"metric": "interactions", "scope": f"organization:{login}"}),
        ("compare_periods", {"metric": "interactions", "first": "2026-10-30", "second": "2026-11-27", "scope": login}),
        ("query_metric", {"metric": "agent_adoption", "filters": {"agent": login}, "sql": f"WHERE login = '{login}'"}),
    ]

    async def script(session: ClientSession) -> tuple[list[types.CallToolResult], list[types.CallToolResult]]:
        refused = [await session.call_tool(name, arguments) for name, arguments in refused_outright]
        answered = [
            await session.call_tool("query_metric", team_of_few),
            await session.call_tool("query_metric", {"metric": "agent_adoption", "filters": {"agent": login}}),
            await session.call_tool("list_metrics", {}),
            await session.call_tool("list_dimensions", {}),
            *[
                await session.call_tool("query_metric", {"metric": name})
                for name in sorted(METRICS)
                if METRICS[name].tier == "aggregate"
            ],
        ]
        return refused, answered

    refused, answered = talk(home, script, errlog=tmp_path / "stderr")
    lines = [refusal(result) for result in refused]
    for line in lines[: 2 * len(PER_PERSON) + 1]:
        assert "pseudonymous tier" in line, line
    everyone = home.logins_and_ids() | _pseudonyms(home)
    for result, asked in zip(refused, refused_outright, strict=True):
        assert not _named(result, everyone, asked[1]), result
    for result in answered:
        assert not _named(result, everyone), result
    active = {
        str(day): users
        for day, users in home.sql(
            "SELECT day, active_users FROM bi.team_usage_daily WHERE scope = $1 AND scope_name = $2 "
            "AND CAST(team_id AS VARCHAR) = $3",
            scope,
            scope_name,
            team,
        )
    }
    few = [row for row in answer(answered[0])["rows"] if active.get(row["day"], 0) < K]
    assert few and all(row["suppressed"] and row["team_active_users"] is None for row in few)
    assert answer(answered[1])["rows"] == []  # a login is no agent app
    assert {m["tier"] for m in answer(answered[2])["metrics"]} == {"aggregate"}
    assert "user" not in {d["name"] for d in answer(answered[3])["dimensions"]}


def test_every_team_day_of_fewer_than_k_active_people_is_hidden(home: Home, tmp_path: Path) -> None:
    ((first, last),) = home.sql("SELECT min(day), max(day) FROM bi.team_usage_daily")

    async def script(session: ClientSession) -> types.CallToolResult:
        return await session.call_tool(
            "query_metric", {"metric": "team_active_users", "start": first.isoformat(), "end": last.isoformat()}
        )

    rows = answer(talk(home, script, errlog=tmp_path / "stderr", METRICS_CATALOG_ROW_LIMIT="100000"))["rows"]
    shown = {(r["scope"], r["scope_name"], r["day"], str(r["team"])) for r in rows if not r["suppressed"]}
    few = home.sql(
        "SELECT scope, scope_name, CAST(day AS VARCHAR), CAST(team_id AS VARCHAR) FROM bi.team_usage_daily "
        "WHERE active_users BETWEEN 1 AND $1",
        K - 1,
    )
    assert few and not shown & set(few)


def test_the_pseudonymous_tier_answers_by_pseudonym_never_by_login_or_id(home: Home, tmp_path: Path) -> None:
    login, user_id = _person(home)
    pseudonyms = _pseudonyms(home)
    metric = PER_PERSON[0]

    async def script(session: ClientSession) -> list[types.CallToolResult]:
        everyone = await session.call_tool("query_metric", {"metric": metric, "scope": "organization:acme"})
        assert isinstance(everyone.structured_content, dict)
        one = everyone.structured_content["rows"][0]["user"]
        return [
            everyone,
            await session.call_tool("query_metric", {"metric": metric, "filters": {"user": one}}),
            await session.call_tool("query_metric", {"metric": metric, "filters": {"user": login}}),
            await session.call_tool("query_metric", {"metric": metric, "filters": {"user": user_id}}),
            await session.call_tool("query_metric", {"metric": metric, "group_by": ["login"]}),
            await session.call_tool("list_metrics", {}),
        ]

    everyone, one, by_login, by_id, grouped, listed = talk(
        home, script, "--tier", "pseudonymous", errlog=tmp_path / "stderr"
    )
    rows = answer(everyone)["rows"]
    assert rows and {row["user"] for row in rows} <= pseudonyms
    assert {row["user"] for row in answer(one)["rows"]} == {rows[0]["user"]}
    assert answer(by_login)["rows"] == [] and answer(by_id)["rows"] == []
    assert refusal(grouped).startswith("unknown dimension 'login': accepted: ")
    assert set(PER_PERSON) <= {m["name"] for m in answer(listed)["metrics"]}
    for result in (everyone, one, by_login, by_id, grouped, listed):
        assert not _named(result, home.logins_and_ids()), result
