"""The MCP server: the official SDK's low-level `Server`, with the catalog's tools.

Each call opens the tier's database read-only for as long as it takes (MetricsReader), so every
answer is of the newest publish, and what `forget` or retention removed is gone from the next one.
Calls run one at a time, on a worker thread: a slow one never stops the server reading and
answering the protocol, and two never hold two connections' memory at once. A refused question
is a tool error whose text is the reader's one line; nothing of a traceback reaches the client.
"""

from __future__ import annotations

import functools
from importlib.metadata import version
from typing import Any

import anyio
import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.shared.exceptions import MCPError
from pydantic import ValidationError

from pipelines.mcp._tools import TOOLS, ToolSpec, argument_error
from pipelines.metrics import MetricsConfig, MetricsError, MetricsReader

INSTRUCTIONS = (
    "Governed metrics of an organization's AI-assistant usage (the platform's usage reports), "
    "answered from a catalog of declared metrics, never from SQL. Call list_metrics first, then "
    "query_metric or compare_periods with a metric's name. Read every answer with what it carries: "
    "a gap day has no figure (it is not a zero), a provisional day is still filling in, rows "
    "suppressed under k are hidden to protect people (not zero either), and a change is only a "
    "change when compare_periods calls it one. Do not add up figures of different metrics."
)
_READ_ONLY = types.ToolAnnotations(read_only_hint=True, destructive_hint=False, open_world_hint=False)


def build_server(config: MetricsConfig) -> Server[Any]:
    """The server answering from the tier `config` names, within its row and time limits."""
    one_at_a_time = anyio.CapacityLimiter(1)
    tools = [
        types.Tool(
            name=spec.name,
            description=spec.description,
            input_schema=spec.args.model_json_schema(),
            annotations=_READ_ONLY,
        )
        for spec in TOOLS.values()
    ]

    async def list_tools(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools)

    async def call_tool(ctx: ServerRequestContext[Any], params: types.CallToolRequestParams) -> types.CallToolResult:
        spec = TOOLS.get(params.name)
        if spec is None:
            raise MCPError(
                code=types.INVALID_PARAMS, message=f"unknown tool {params.name!r}: the tools are {', '.join(TOOLS)}"
            )
        try:
            args = spec.args.model_validate(params.arguments or {})
        except ValidationError as exc:
            return _refused(argument_error(spec, exc))
        try:
            answer = await anyio.to_thread.run_sync(
                functools.partial(_answer, config, spec, args), limiter=one_at_a_time
            )
        except MetricsError as exc:
            return _refused(str(exc))
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=spec.text(answer))], structured_content=answer
        )

    return Server(
        "metrics-etl",
        version=version("metrics-etl"),
        title="metrics-etl: governed AI-assistant usage metrics",
        instructions=INSTRUCTIONS,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )


def _answer(config: MetricsConfig, spec: ToolSpec, args: Any) -> dict[str, Any]:
    with MetricsReader(config) as reader:
        return spec.answer(reader, args)


def _refused(line: str) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(type="text", text=line)], is_error=True)
