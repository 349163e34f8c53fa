"""The MCP server: the official SDK's low-level `Server`, with the catalog's tools.

Each call opens the tier's database read-only for as long as it takes (MetricsReader), so every
answer is of the newest publish, and what `forget` or retention removed is gone from the next one.
Calls run one at a time, on a worker thread: a slow one never stops the server reading and
answering the protocol, and two never hold two connections' memory at once. A refused question
is a tool error whose text is the reader's one line, or the time limit's; nothing of a traceback
reaches the client.
"""

from __future__ import annotations

import threading
from importlib.metadata import version
from typing import Any, cast

import anyio
import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.shared.exceptions import MCPError
from pydantic import ValidationError

from pipelines.config import ENV_VARS
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
    questions = _Questions(config)
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
            answer = await questions.answer(spec, args)
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


class _Questions:
    """Questions one at a time, each on a worker thread and answered within the time limit, the wait
    for its turn included. Past the limit the client is told so at once and the server reads on;
    the question's thread, which the reader interrupts at the same limit, ends before the next
    question starts, and a question whose client was told already is never asked."""

    def __init__(self, config: MetricsConfig) -> None:
        self.config = config
        self.turn = threading.Lock()

    async def answer(self, spec: ToolSpec, args: Any) -> dict[str, Any]:
        given_up = threading.Event()

        def ask() -> dict[str, Any] | None:
            with self.turn:
                if given_up.is_set():
                    return None
                with MetricsReader(self.config) as reader:
                    return spec.answer(reader, args)

        with anyio.move_on_after(self.config.time_limit_s):
            answer = await anyio.to_thread.run_sync(ask, abandon_on_cancel=True)
            return cast(dict[str, Any], answer)  # None only once given up, below
        given_up.set()
        raise MetricsError(
            f"the question ran past the time limit of {self.config.time_limit_s:g} s "
            f"({ENV_VARS['catalog_timeout']}): ask for fewer days or groups, or raise the limit",
            usage=False,
        )


def _refused(line: str) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(type="text", text=line)], is_error=True)
