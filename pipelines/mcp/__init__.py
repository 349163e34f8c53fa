"""`metrics-etl mcp`: the metric catalog served to AI assistants over the Model Context Protocol
(the official SDK), over stdio or streamable HTTP on loopback. It reads only through
`pipelines.metrics`: the tier its config names, within the config's row and time limits."""

from __future__ import annotations

from collections.abc import Callable

import anyio

from pipelines.mcp._http import serve_http as _serve_http
from pipelines.mcp._server import INSTRUCTIONS, build_server
from pipelines.mcp._stdio import bounded_stdio, claimed_stdio
from pipelines.mcp._tools import TOOLS
from pipelines.metrics import MetricsConfig

__all__ = ["INSTRUCTIONS", "MAX_MESSAGE_BYTES", "TOOLS", "build_server", "serve_http", "serve_stdio"]

# The longest message a client may send: a call is a few hundred bytes; this leaves room for many
# filters and still refuses a flood before it is held.
MAX_MESSAGE_BYTES = 1 << 20


def serve_stdio(config: MetricsConfig, *, limit: int = MAX_MESSAGE_BYTES) -> None:
    """Serve one client on stdin and stdout until stdin ends."""

    async def serve() -> None:
        server = build_server(config)
        with claimed_stdio() as (wire_in, wire_out):
            async with bounded_stdio(wire_in, wire_out, limit=limit) as (read, write):
                await server.run(read, write, server.create_initialization_options())

    anyio.run(serve)


def serve_http(
    config: MetricsConfig, *, port: int, announce: Callable[[str], None], limit: int = MAX_MESSAGE_BYTES
) -> None:
    """Serve streamable HTTP on 127.0.0.1:`port` until interrupted."""
    anyio.run(lambda: _serve_http(build_server(config), port=port, limit=limit, announce=announce))
