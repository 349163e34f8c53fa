"""The server in-process, through the SDK's own client: it lists the catalog's tools read-only, a
question the reader refuses is a tool error whose text is the reader's one line, an unknown tool
is a protocol error naming the tools, and the server answers on after each."""

from __future__ import annotations

from pathlib import Path

import anyio
import mcp_types as types
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError

from pipelines.mcp import TOOLS, build_server
from pipelines.metrics import MetricsConfig


def test_a_refusal_is_the_readers_one_line_and_the_server_answers_on(tmp_path: Path) -> None:
    absent = tmp_path / "aggregate" / "serving-aggregate.duckdb"
    server = build_server(MetricsConfig(aggregate_path=absent))

    async def talk() -> tuple[types.ListToolsResult, list[types.CallToolResult], str]:
        async with Client(server) as client:
            listed = await client.list_tools()
            refused = [
                await client.call_tool("query_metric", {"metric": "agent_adoption"}),
                await client.call_tool("query_metric", {"metric": "agent_adoption", "sql": "SELECT 1"}),
            ]
            with pytest.raises(MCPError) as unknown:
                await client.call_tool("run_sql", {"sql": "SELECT 1"})
            return listed, refused, unknown.value.error.message

    listed, (missing, sql), unknown = anyio.run(talk)
    assert [tool.name for tool in listed.tools] == list(TOOLS)
    assert all(tool.annotations and tool.annotations.read_only_hint for tool in listed.tools)
    assert missing.is_error and missing.structured_content is None
    assert [block.text for block in missing.content if isinstance(block, types.TextContent)] == [
        f"no aggregate tier yet: {absent} does not exist (every publish writes it: run `metrics-etl run`)"
    ]
    assert sql.is_error
    assert unknown == (
        "unknown tool 'run_sql': the tools are list_metrics, list_dimensions, describe_metric, query_metric, "
        "compare_periods"
    )


def test_a_question_past_the_time_limit_is_answered_so_and_the_server_answers_on(tmp_path: Path) -> None:
    absent = tmp_path / "aggregate" / "serving-aggregate.duckdb"
    # No question ends within a microsecond: the limit passes before the reader has answered.
    server = build_server(MetricsConfig(aggregate_path=absent, time_limit_s=1e-6))

    async def talk() -> tuple[types.CallToolResult, types.ListToolsResult]:
        async with Client(server) as client:
            late = await client.call_tool("list_metrics", {})
            return late, await client.list_tools()

    late, listed = anyio.run(talk)
    assert late.is_error
    assert [block.text for block in late.content if isinstance(block, types.TextContent)] == [
        "the question ran past the time limit of 1e-06 s (METRICS_CATALOG_TIMEOUT): ask for fewer days or groups, "
        "or raise the limit"
    ]
    assert len(listed.tools) == len(TOOLS)
