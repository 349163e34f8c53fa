"""docs/assistants.md as a reader uses it: its client configuration, with the reader's own paths,
starts `metrics-etl mcp` for the demo's home with nothing else in the environment, and the
exchange it shows is what the server answers to its request (the same keys, the same metric)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from tests.integration.mcp.conftest import CLI, Home

# The first test of a run builds the demo's home (conftest.py): minutes on a shared 2-core machine.
pytestmark = pytest.mark.timeout(1800)

DOC = Path(__file__).resolve().parents[3] / "docs" / "assistants.md"
_BLOCK = re.compile(r"^```json\n(.*?)^```", re.M | re.S)


def _blocks() -> list[Any]:
    return [json.loads(block) for block in _BLOCK.findall(DOC.read_text())]


def test_the_docs_client_configuration_starts_the_server_and_its_exchange_is_the_servers(
    home: Home, tmp_path: Path
) -> None:
    configuration, request, shown = _blocks()
    (server,) = configuration["mcpServers"].values()
    args = [str(home.path) if arg == "/home/you/.local/share/metrics-etl-demo" else arg for arg in server["args"]]
    assert server["command"] == "/home/you/metrics-etl/.venv/bin/metrics-etl" and args != server["args"]
    params = StdioServerParameters(command=CLI, args=args, cwd=home.cwd)  # the SDK's default environment alone

    async def script() -> dict[str, Any]:
        with (tmp_path / "stderr").open("w") as err:
            async with stdio_client(params, errlog=err) as (read, write), ClientSession(read, write) as session:
                await session.initialize()
                result = await session.call_tool(request["params"]["name"], request["params"]["arguments"])
        assert not result.is_error and isinstance(result.structured_content, dict)
        return result.model_dump(mode="json", by_alias=True, exclude_none=True)

    got = anyio.run(script)
    # The exchange as this run had it, to show in the doc when the answer's shape changes.
    (tmp_path / "exchange.json").write_text(
        json.dumps([request, {"jsonrpc": "2.0", "id": request["id"], "result": got}])
    )
    assert request["method"] == "tools/call"
    content, shown_content = got["structuredContent"], shown["result"]["structuredContent"]
    assert set(content) == set(shown_content) and content["metric"] == shown_content["metric"]
    assert set(content["rows"][0]) == set(shown_content["rows"][0])
    assert got["content"][0]["text"].splitlines()[0] == shown["result"]["content"][0]["text"].splitlines()[0]
