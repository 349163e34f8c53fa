"""MCP over streamable HTTP, on 127.0.0.1 only: the SDK's app (which refuses a Host or Origin
other than loopback's, against DNS rebinding) behind uvicorn, on a socket bound here."""

from __future__ import annotations

import socket
from collections.abc import Callable
from typing import Any

import uvicorn
from mcp.server.lowlevel import Server

LOOPBACK = "127.0.0.1"
PATH = "/mcp"


async def serve_http(server: Server[Any], *, port: int, limit: int, announce: Callable[[str], None]) -> None:
    """Serve until interrupted; `announce` is told the endpoint's URL once the port is bound (port
    0: a free one)."""
    app = server.streamable_http_app(streamable_http_path=PATH, max_request_body_size=limit, host=LOOPBACK)
    sock = socket.create_server((LOOPBACK, port))
    with sock:
        announce(f"http://{LOOPBACK}:{sock.getsockname()[1]}{PATH}")
        config = uvicorn.Config(app, log_level="warning", lifespan="on")
        await uvicorn.Server(config).serve(sockets=[sock])
