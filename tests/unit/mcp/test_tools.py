"""The tools' arguments: what a client is shown (no tool takes SQL or anything unnamed) and what a
wrong call is told, in one line naming what the tool takes; the text beside an answer says what
the answer carries."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from pipelines.mcp._tools import TEXT_ROWS, TOOLS, ToolSpec, argument_error


def _refused(tool: str, arguments: dict[str, Any]) -> str:
    spec = TOOLS[tool]
    with pytest.raises(ValidationError) as caught:
        spec.args.model_validate(arguments)
    return argument_error(spec, caught.value)


def test_the_tools_are_the_catalogs_five_and_none_takes_sql_or_an_argument_it_does_not_name() -> None:
    assert list(TOOLS) == ["list_metrics", "list_dimensions", "describe_metric", "query_metric", "compare_periods"]
    for spec in TOOLS.values():
        schema = spec.args.model_json_schema()
        assert schema["type"] == "object" and schema["additionalProperties"] is False, spec.name
        assert not any("sql" in name.lower() or "query" in name.lower() for name in schema.get("properties", {}))


@pytest.mark.parametrize(
    ("tool", "arguments", "line"),
    [
        (
            "query_metric",
            {"metric": "agent_adoption", "sql": "SELECT * FROM core.user_daily_totals"},
            "query_metric takes no argument 'sql': it takes metric, scope, start, end, period, group_by, filters",
        ),
        ("list_metrics", {"tier": "pseudonymous"}, "list_metrics takes no argument 'tier': it takes none"),
        ("describe_metric", {}, "describe_metric needs metric: it takes metric"),
        (
            "compare_periods",
            {"metric": "agent_adoption", "first": "2026-10-30"},
            "compare_periods needs second: it takes metric, scope, first, second, group_by",
        ),
        (
            "query_metric",
            {"metric": "agent_adoption", "group_by": "user"},
            "query_metric: group_by: Input should be a valid tuple: it takes metric, scope, start, end, period, "
            "group_by, filters",
        ),
        (
            "query_metric",
            {"metric": "agent_adoption", "filters": {"user": ["a", "b"]}},
            "query_metric: filters.user: Input should be a valid string: it takes metric, scope, start, end, "
            "period, group_by, filters",
        ),
    ],
)
def test_a_wrong_call_is_one_line_naming_what_the_tool_takes(tool: str, arguments: dict[str, Any], line: str) -> None:
    assert _refused(tool, arguments) == line


def test_an_argument_past_its_bound_is_refused_before_the_reader_is_asked() -> None:
    line = _refused("query_metric", {"metric": "x" * 10_000})
    assert line.startswith("query_metric: metric: String should have at most 200 characters")
    line = _refused("query_metric", {"metric": "agent_adoption", "group_by": ["agent"] * 11})
    assert line.startswith("query_metric: group_by: Tuple should have at most 10 items")


def _answer(rows: int, **extra: Any) -> dict[str, Any]:
    return {
        "metric": {"name": "agent_adoption", "definition": "Users of each agent app."},
        "rows": [{"agent": str(n), "agent_adoption": None, "suppressed": True} for n in range(rows)],
        "gaps": ["2026-11-01"],
        "provisional": [f"2026-11-{day:02}" for day in range(10, 20)],
        "suppressed": {"count": rows, "groups": []},
        "freshness": {"newest_day": "2026-11-27", "published_at": "2026-11-28T01:00:00+00:00"},
        "truncated": False,
        **extra,
    }


def test_the_text_of_an_answer_says_what_it_carries_and_lists_its_first_rows() -> None:
    spec: ToolSpec = TOOLS["query_metric"]
    lines = spec.text(_answer(TEXT_ROWS + 5, truncated=True)).splitlines()
    assert lines[0] == "agent_adoption: Users of each agent app."
    assert lines[1] == (
        f"{TEXT_ROWS + 5} rows (cut at the row limit); suppressed under k: {TEXT_ROWS + 5}; gap days (no figure, "
        "not zero): 2026-11-01; provisional days (still filling in): 10 days from 2026-11-10 to 2026-11-19; "
        "newest day 2026-11-27, published 2026-11-28T01:00:00+00:00"
    )
    assert lines[2] == 'agent="0"; agent_adoption=null; suppressed=true'
    assert lines[2 + TEXT_ROWS :] == ["… 5 more rows in the structured content"]
