"""`metrics-etl mcp` bounded: a client writing garbage, a message of megabytes or JSON that is no
message gets a JSON-RPC error each, and the server answers the next request; an answer stops at
the row limit and says so; a question past the time limit is answered so, in one line; a server
with no tier to read refuses to start in one line; over HTTP it listens on loopback alone and
refuses a request body past the limit."""

from __future__ import annotations

import json
import queue
import re
import subprocess
import threading
from pathlib import Path
from typing import Any

import anyio
import httpx
import mcp_types as types
import pytest
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client

from pipelines.mcp import MAX_MESSAGE_BYTES
from tests.integration.mcp._client import answer, refusal, talk
from tests.integration.mcp.conftest import CLI, Home, cli

# The first test of a run builds the demo's home (conftest.py): minutes on a shared 2-core machine.
pytestmark = pytest.mark.timeout(1800)

_INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}},
}


def _line(message: dict[str, Any]) -> bytes:
    return json.dumps(message).encode() + b"\n"


def test_garbage_and_a_huge_message_get_an_error_each_and_the_server_answers_on(home: Home, tmp_path: Path) -> None:
    huge = b'{"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"name": "' + b"x" * (3 * MAX_MESSAGE_BYTES)
    sent = b"".join(
        [
            _line(_INITIALIZE),
            _line({"jsonrpc": "2.0", "method": "notifications/initialized"}),
            b"\x00\xff this is no JSON \xfe\n",
            huge + b'"}}\n',
            b'{"jsonrpc": "2.0", "id": 6, "method": 12}\n',
            _line({"jsonrpc": "2.0", "id": 7, "method": "ping"}),
            _line({"jsonrpc": "2.0", "id": 8, "method": "tools/call", "params": {"name": "list_metrics"}}),
        ]
    )
    server = subprocess.Popen(
        [CLI, "--home", str(home.path), "mcp"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=home.env,
        cwd=home.cwd,
    )
    assert server.stdin and server.stdout and server.stderr
    lines: queue.Queue[bytes] = queue.Queue()
    threading.Thread(target=lambda: [lines.put(line) for line in server.stdout], daemon=True).start()
    server.stdin.write(sent)
    server.stdin.flush()
    # Every line is answered while the client stays: the two lines that are no message (no id to
    # answer to) in the order sent, the others by their id.
    answers = [json.loads(lines.get(timeout=120)) for _ in range(6)]
    server.stdin.close()  # the client leaves: the server ends
    assert server.wait(timeout=120) == 0
    assert b"Traceback" not in server.stderr.read()
    by_id = {a["id"]: a for a in answers if a["id"] is not None}
    assert sorted(by_id) == [1, 6, 7, 8]
    assert [a["error"] for a in answers if a["id"] is None] == [
        {"code": -32700, "message": "not JSON: each line must be one JSON-RPC 2.0 message"},
        {"code": -32600, "message": f"message of {len(huge) + 3:,} bytes refused: at most {MAX_MESSAGE_BYTES:,}"},
    ]
    assert by_id[6]["error"]["code"] == -32600
    assert by_id[7]["result"] == {}
    assert by_id[8]["result"]["structuredContent"]["metrics"]


def test_an_answer_stops_at_the_row_limit_and_says_so(home: Home, tmp_path: Path) -> None:
    async def script(session: ClientSession) -> types.CallToolResult:
        return await session.call_tool("query_metric", {"metric": "agent_users"})

    result = talk(home, script, errlog=tmp_path / "stderr", METRICS_CATALOG_ROW_LIMIT="3")
    got = answer(result)
    assert len(got["rows"]) == 3 and got["truncated"] is True
    (block,) = result.content
    assert isinstance(block, types.TextContent) and "3 rows (cut at the row limit)" in block.text


def test_a_question_past_the_time_limit_is_one_line_and_the_server_answers_on(home: Home, tmp_path: Path) -> None:
    async def script(session: ClientSession) -> tuple[types.CallToolResult, types.ListToolsResult]:
        late = await session.call_tool("query_metric", {"metric": "team_active_users", "start": "2026-01-01"})
        return late, await session.list_tools()

    errlog = tmp_path / "stderr"
    # No question ends within a microsecond.
    late, listed = talk(home, script, errlog=errlog, METRICS_CATALOG_TIMEOUT="0.000001")
    assert refusal(late) == (
        "the question ran past the time limit of 1e-06 s (METRICS_CATALOG_TIMEOUT): ask for fewer days or groups, "
        "or raise the limit"
    )
    assert len(listed.tools) == 5
    assert "Traceback" not in errlog.read_text()


def test_without_the_tier_to_read_it_refuses_to_start_in_one_line(home: Home, tmp_path: Path) -> None:
    empty = Home(path=tmp_path / "empty", cwd=home.cwd, env=home.env)
    done = cli(empty, "mcp")
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.splitlines() == [
        f"metrics-etl mcp: no aggregate tier yet: {empty.path}/aggregate/serving-aggregate.duckdb does not exist "
        "(every publish writes it: run `metrics-etl run`)"
    ]


def test_over_http_it_listens_on_loopback_alone_and_refuses_garbage_a_huge_body_and_another_host(
    home: Home, tmp_path: Path
) -> None:
    errlog = tmp_path / "stderr"
    with errlog.open("wb") as err:
        server = subprocess.Popen(
            [CLI, "--home", str(home.path), "mcp", "--http", "0"], env=home.env, cwd=home.cwd, stderr=subprocess.PIPE
        )
        try:
            assert server.stderr is not None
            first = server.stderr.readline().decode()
            match = re.fullmatch(r"MCP over streamable HTTP: (http://127\.0\.0\.1:(\d+)/mcp)\n", first)
            assert match, first
            url, port = match[1], int(match[2])

            async def script() -> tuple[list[int], dict[str, Any], list[str]]:
                headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
                async with httpx.AsyncClient(headers=headers) as raw:
                    garbage = await raw.post(url, content=b"{not json")
                    refused = [
                        garbage,
                        await raw.post(url, content=b"x" * (MAX_MESSAGE_BYTES + 1)),
                        await raw.post(url, content=b"{}", headers={"Host": "evil.example"}),  # DNS rebinding
                    ]
                async with streamable_http_client(url) as (read, write), ClientSession(read, write) as session:
                    await session.initialize()
                    names = [tool.name for tool in (await session.list_tools()).tools]
                return [r.status_code for r in refused], garbage.json(), names

            statuses, garbage, names = anyio.run(script)
            assert statuses == [400, 413, 421]
            assert garbage["error"]["code"] == -32700
            assert names[0] == "list_metrics"  # and it answers on
            listening = subprocess.run(["ss", "-ltnH", f"sport = :{port}"], capture_output=True, text=True).stdout
            assert listening.split() and all(
                line.split()[3] == f"127.0.0.1:{port}" for line in listening.splitlines()
            ), listening
        finally:
            server.terminate()
            server.wait(timeout=60)
            err.write(server.stderr.read() if server.stderr else b"")
    assert b"Traceback" not in errlog.read_bytes()
