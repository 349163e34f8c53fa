"""Attacks on `metrics-etl mcp` from its documentation alone (docs/assistants.md, docs/metrics.md):
each test is a promise a hostile or careless client broke, marked xfail (strict) until it is fixed.
The attacks that held are listed in the report of issue 46, not here."""

from __future__ import annotations

import datetime as dt
import json
import queue
import re
import resource
import socket
import subprocess
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from mcp.client.session import ClientSession

from tests.integration.mcp._client import answer, refusal, talk
from tests.integration.mcp.conftest import CLI, Home

# The first test of a run builds the demo's home (conftest.py): minutes on a shared 2-core machine.
pytestmark = pytest.mark.timeout(1800)

_INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}},
}
_HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}


def _line(message: dict[str, Any]) -> bytes:
    return json.dumps(message).encode() + b"\n"


def _newest_day(home: Home, tmp_path: Path) -> dt.date:
    async def script(session: ClientSession) -> str:
        got = answer(await session.call_tool("query_metric", {"metric": "interactions"}))
        return str(got["freshness"]["newest_day"])

    return dt.date.fromisoformat(talk(home, script, errlog=tmp_path / "stderr"))


def test_a_deeply_nested_json_line_gets_an_error_and_the_server_answers_on(home: Home) -> None:
    depth = 2000
    deep = b'{"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"name": "query_metric", "arguments": '
    deep += b'{"metric": ' + b"[" * depth + b"]" * depth + b"}}}\n"
    server = subprocess.Popen(
        [CLI, "--home", str(home.path), "mcp"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=home.env,
        cwd=home.cwd,
    )
    try:
        assert server.stdin and server.stdout and server.stderr
        lines: queue.Queue[bytes] = queue.Queue()
        out = server.stdout

        def read() -> None:
            for line in out:
                lines.put(line)

        threading.Thread(target=read, daemon=True).start()
        server.stdin.write(_line(_INITIALIZE) + _line({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        server.stdin.flush()
        assert json.loads(lines.get(timeout=120))["id"] == 1
        server.stdin.write(deep + _line({"jsonrpc": "2.0", "id": 7, "method": "ping"}))
        server.stdin.flush()
        answers = [json.loads(lines.get(timeout=120)) for _ in range(2)]
        server.stdin.close()
        assert server.wait(timeout=120) == 0
        assert answers[0]["error"]["code"] in (-32700, -32600)
        assert answers[1] == {"jsonrpc": "2.0", "id": 7, "result": {}}
        assert b"Traceback" not in server.stderr.read()
    finally:
        server.kill()
        server.wait(timeout=60)


def test_a_period_before_the_tiers_history_is_no_zero_and_the_answer_says_where_history_begins(
    home: Home, tmp_path: Path
) -> None:
    newest = _newest_day(home, tmp_path)
    # The demo reports 56 days up to the newest: the period ending 56 days before it has none.
    empty_end = newest - dt.timedelta(days=56)

    async def script(session: ClientSession) -> dict[str, Any]:
        arguments = {"metric": "interactions", "scope": "organization:acme", "first": empty_end.isoformat()}
        return answer(await session.call_tool("compare_periods", arguments | {"second": newest.isoformat()}))

    got = talk(home, script, errlog=tmp_path / "stderr")
    (row,) = got["rows"]
    assert row["first_days"] == 0
    assert row["first_value"] is None, row  # not 0.0: nothing was reported
    assert row["call"] is None and "no comparison" in row["said"], row
    # Its days are outside the tier's history, which the answer says begins after them.
    assert dt.date.fromisoformat(got["freshness"]["first_day"]) > empty_end, got["freshness"]


@pytest.mark.parametrize("spelling", ["compact", "padded"])
def test_a_day_is_taken_only_as_yyyy_mm_dd(home: Home, tmp_path: Path, spelling: str) -> None:
    newest = _newest_day(home, tmp_path)
    day = newest.strftime("%Y%m%d") if spelling == "compact" else f" {newest.isoformat()} "

    async def script(session: ClientSession) -> str:
        arguments = {"metric": "interactions", "scope": "organization:acme", "start": day, "end": day}
        return refusal(await session.call_tool("query_metric", arguments))

    line = talk(home, script, errlog=tmp_path / "stderr")
    assert "YYYY-MM-DD" in line, line


@contextmanager
def _http_server(home: Home, errlog: Path, open_files: int | None = None) -> Iterator[tuple[str, int]]:
    """`metrics-etl mcp --http 0`, its URL and port; stderr (after the URL line) kept in `errlog`."""

    def limit() -> None:
        if open_files is not None:
            resource.setrlimit(resource.RLIMIT_NOFILE, (open_files, open_files))

    with errlog.open("wb") as err:
        server = subprocess.Popen(
            [CLI, "--home", str(home.path), "mcp", "--http", "0"],
            env=home.env,
            cwd=home.cwd,
            stderr=subprocess.PIPE,
            preexec_fn=limit,
        )
        try:
            assert server.stderr is not None
            match = re.fullmatch(
                r"MCP over streamable HTTP: (http://127\.0\.0\.1:(\d+)/mcp)\n", server.stderr.readline().decode()
            )
            assert match
            yield match[1], int(match[2])
        finally:
            server.terminate()
            try:
                server.wait(timeout=60)
            except subprocess.TimeoutExpired:  # one that will not stop is stopped all the same
                server.kill()
                server.wait(timeout=60)
            err.write(server.stderr.read() if server.stderr else b"")


def _unfinished(port: int) -> socket.socket:
    """A POST whose body of 1,000 bytes never comes past its first 10."""
    conn = socket.create_connection(("127.0.0.1", port))
    head = f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
    conn.sendall(
        f'{head}Accept: application/json, text/event-stream\r\nContent-Length: 1000\r\n\r\n{{"jsonrpc"'.encode()
    )
    return conn


def test_requests_never_finished_do_not_starve_the_next_client(home: Home, tmp_path: Path) -> None:
    errlog = tmp_path / "stderr"
    with _http_server(home, errlog, open_files=128) as (url, port):
        held = [_unfinished(port) for _ in range(200)]
        try:
            reply = httpx.post(url, json=_INITIALIZE, headers=_HEADERS, timeout=60)
        finally:
            for conn in held:
                conn.close()
        assert reply.status_code == 200
    assert b"Traceback" not in errlog.read_bytes()


def test_a_client_leaving_mid_request_prints_no_traceback(home: Home, tmp_path: Path) -> None:
    errlog = tmp_path / "stderr"
    with _http_server(home, errlog) as (url, port):
        _unfinished(port).close()
        # The next request is answered after the server has seen the first one go.
        assert httpx.post(url, json=_INITIALIZE, headers=_HEADERS, timeout=60).status_code == 200
        assert httpx.post(url, json=_INITIALIZE, headers=_HEADERS, timeout=60).status_code == 200
    assert b"Traceback" not in errlog.read_bytes()


def test_a_host_or_origin_that_only_begins_as_this_servers_is_refused(home: Home, tmp_path: Path) -> None:
    with _http_server(home, tmp_path / "stderr") as (url, port):
        hosts = {
            h: httpx.post(url, json=_INITIALIZE, headers=_HEADERS | {"Host": h}, timeout=60).status_code
            for h in (f"127.0.0.1:{port}@evil.example", "127.0.0.1:evil", f"localhost:{port + 1}")
        }
        origin = httpx.post(
            url, json=_INITIALIZE, headers=_HEADERS | {"Origin": f"http://127.0.0.1:{port}.evil.example"}, timeout=60
        ).status_code
        mine = httpx.post(url, json=_INITIALIZE, headers=_HEADERS | {"Host": f"localhost:{port}"}, timeout=60)
    assert hosts == dict.fromkeys(hosts, 421) and origin == 403 and mine.status_code == 200
