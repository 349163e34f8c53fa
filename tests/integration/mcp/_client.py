"""Talking to `metrics-etl mcp` as an assistant's client does: the MCP SDK's own stdio client
starts the command as a subprocess and speaks the protocol on its stdin and stdout."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, TypeVar

import anyio
import mcp_types as types
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from tests.integration.mcp.conftest import CLI, Home

T = TypeVar("T")


@asynccontextmanager
async def connected(home: Home, *args: str, errlog: Path, **env: str) -> AsyncIterator[ClientSession]:
    """A session with `metrics-etl --home <home> mcp <args>`, its stderr kept in `errlog`."""
    server = StdioServerParameters(
        command=CLI, args=["--home", str(home.path), "mcp", *args], env={**home.env, **env}, cwd=home.cwd
    )
    with errlog.open("a") as err:
        async with stdio_client(server, errlog=err) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            yield session


def talk(home: Home, script: Callable[[ClientSession], Awaitable[T]], *args: str, errlog: Path, **env: str) -> T:
    """`script`'s result, run against a server started for it and stopped after."""

    async def run() -> T:
        async with connected(home, *args, errlog=errlog, **env) as session:
            return await script(session)

    return anyio.run(run)


def text(result: types.CallToolResult) -> str:
    (block,) = result.content
    assert isinstance(block, types.TextContent)
    return block.text


def refusal(result: types.CallToolResult) -> str:
    """The one line of a refused call."""
    assert result.is_error, result.structured_content
    line = text(result)
    assert "\n" not in line and "Traceback" not in line, line
    return line


def answer(result: types.CallToolResult) -> dict[str, Any]:
    assert not result.is_error, text(result)
    assert isinstance(result.structured_content, dict)
    return result.structured_content
