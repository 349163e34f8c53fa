"""More attacks on `metrics-etl mcp` from its documentation alone (docs/assistants.md,
docs/metrics.md, guarantees.md's "Governed metrics"): each break is marked xfail (strict) until it
is fixed; an attack that held is a plain test."""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import select
import socket
from pathlib import Path
from typing import Any

import httpx
import pytest
from mcp.client.session import ClientSession

from tests.integration.mcp._client import answer, refusal, talk
from tests.integration.mcp.conftest import Home
from tests.integration.mcp.test_attacks import _HEADERS, _INITIALIZE, _http_server, _newest_day

pytestmark = pytest.mark.timeout(1800)


def _connect(port: int) -> socket.socket:
    conn = socket.create_connection(("127.0.0.1", port), timeout=60)
    conn.settimeout(60)
    return conn


def _head(port: int, method: str = "POST", extra: str = "") -> bytes:
    return (
        f"{method} /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
        f"Accept: application/json, text/event-stream\r\n{extra}\r\n"
    ).encode()


def _status(conn: socket.socket) -> bytes:
    """The response's head (status line and headers), read whole."""
    got = b""
    while b"\r\n\r\n" not in got:
        chunk = conn.recv(4096)
        if not chunk:
            break
        got += chunk
    return got.partition(b"\r\n\r\n")[0]


def _newcomer(url: str) -> int:
    return httpx.post(url, json=_INITIALIZE, headers=_HEADERS, timeout=60).status_code


def _cut_off(conn: socket.socket, dribble: bytes, seconds: int) -> bool:
    """Whether the server closes `conn` (or answers it) while a byte of `dribble` is sent a second."""
    for byte in dribble[:seconds]:
        if select.select([conn], [], [], 1)[0]:
            return True
        try:
            conn.sendall(bytes([byte]))
        except OSError:
            return True
    return False


def _session(url: str) -> str:
    reply = httpx.post(url, json=_INITIALIZE, headers=_HEADERS, timeout=60)
    session = reply.headers["mcp-session-id"]
    done = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    httpx.post(url, json=done, headers=_HEADERS | {"mcp-session-id": session}, timeout=60)
    return session


def test_a_request_head_never_finished_is_closed(home: Home, tmp_path: Path) -> None:
    with _http_server(home, tmp_path / "stderr") as (_url, port):
        conn = _connect(port)
        conn.sendall(f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nX-Slow: ".encode())
        assert _cut_off(conn, b"a" * 50, 50)
        conn.close()


def test_a_body_dribbled_a_byte_a_second_is_cut_off(home: Home, tmp_path: Path) -> None:
    with _http_server(home, tmp_path / "stderr") as (_url, port):
        conn = _connect(port)
        conn.sendall(_head(port, extra="Content-Length: 1000\r\n"))
        assert _cut_off(conn, b" " * 50, 50)
        conn.close()


def test_request_heads_never_finished_do_not_starve_the_next_client(home: Home, tmp_path: Path) -> None:
    errlog = tmp_path / "stderr"
    with _http_server(home, errlog, open_files=128) as (url, port):
        held = [_connect(port) for _ in range(200)]
        try:
            for conn in held:
                conn.sendall(f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n".encode())
            assert _newcomer(url) == 200
        finally:
            for conn in held:
                conn.close()
    assert b"Traceback" not in errlog.read_bytes()


def test_idle_keep_alive_connections_do_not_starve_the_next_client(home: Home, tmp_path: Path) -> None:
    errlog = tmp_path / "stderr"
    with _http_server(home, errlog, open_files=128) as (url, port):
        held = []
        try:
            for _ in range(100):
                conn = _connect(port)
                held.append(conn)
                conn.sendall(_head(port, extra="Content-Length: 7\r\n") + b"garbage")
                _status(conn)  # answered, and left open
            assert _newcomer(url) == 200
        finally:
            for conn in held:
                conn.close()
    assert b"Traceback" not in errlog.read_bytes()


def test_a_flood_of_bare_connections_does_not_starve_the_next_client(home: Home, tmp_path: Path) -> None:
    errlog = tmp_path / "stderr"
    with _http_server(home, errlog, open_files=128) as (url, port):
        held = [socket.create_connection(("127.0.0.1", port), timeout=60) for _ in range(600)]
        try:
            assert _newcomer(url) == 200
        finally:
            for conn in held:
                conn.close()
    assert b"Traceback" not in errlog.read_bytes()


def test_sse_streams_held_open_do_not_starve_the_next_client(home: Home, tmp_path: Path) -> None:
    errlog = tmp_path / "stderr"
    with _http_server(home, errlog) as (url, port):
        held = []
        try:
            for _ in range(70):  # past the cap of 64
                session = _session(url)
                conn = _connect(port)
                held.append(conn)
                conn.sendall(_head(port, "GET", f"mcp-session-id: {session}\r\n").replace(b"application/json, ", b""))
                assert _status(conn).startswith(b"HTTP/1.1 200"), "a stream was refused before the cap"
            assert _newcomer(url) == 200
        finally:
            for conn in held:
                conn.close()
    assert b"Traceback" not in errlog.read_bytes()


def test_clients_that_never_read_their_answers_do_not_starve_the_next_client(home: Home, tmp_path: Path) -> None:
    errlog = tmp_path / "stderr"
    with _http_server(home, errlog, open_files=64) as (url, port):
        session = _session(url)
        call = json.dumps({"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {"name": "list_metrics"}})
        one = _head(port, extra=f"mcp-session-id: {session}\r\nContent-Length: {len(call)}\r\n") + call.encode()
        held = []
        try:
            for _ in range(20):  # past the cap of 16 at 64 files
                conn = socket.socket()
                conn.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
                conn.connect(("127.0.0.1", port))
                conn.settimeout(5)
                held.append(conn)
                # Pipelined, their answers never read; the server's ceasing to read is what the attack wants.
                with contextlib.suppress(OSError):
                    conn.sendall(one * 300)
            assert _newcomer(url) == 200
        finally:
            for conn in held:
                conn.close()
    assert b"Traceback" not in errlog.read_bytes()


def _raw_status(port: int, head: str) -> int:
    conn = _connect(port)
    try:
        conn.sendall(head.encode())
        line = _status(conn).split(b"\r\n")[0]
        return int(line.split()[1]) if line else 0
    finally:
        conn.close()


@pytest.mark.parametrize(
    "host",
    [
        "Host: 127.0.0.1:{port}\r\nHost: evil.example:{port}",
        "Host: evil.example:{port}\r\nHost: 127.0.0.1:{port}",
        "Host: 127.0.0.1",
        "Host: localhost.evil.example:{port}",
        "Host: 127.0.0.1.nip.io:{port}",
        "Host: 127.0.0.1:{port}\r\nOrigin: null",
        "Host: 127.0.0.1:{port}\r\nOrigin: http://127.0.0.1:{port}@evil.example",
    ],
    ids=[
        "two-hosts-good-first",
        "two-hosts-evil-first",
        "no-port",
        "localhost-prefix",
        "ip-prefix",
        "origin-null",
        "origin-at",
    ],
)
def test_a_host_or_origin_not_loopback_at_the_bound_port_is_refused(home: Home, tmp_path: Path, host: str) -> None:
    body = json.dumps(_INITIALIZE)
    with _http_server(home, tmp_path / "stderr") as (_url, port):
        head = (
            f"POST /mcp HTTP/1.1\r\n{host.format(port=port)}\r\nContent-Type: application/json\r\n"
            f"Accept: application/json, text/event-stream\r\nContent-Length: {len(body)}\r\n\r\n{body}"
        )
        assert _raw_status(port, head) in (400, 403, 421)


def test_a_host_in_capitals_is_still_this_server(home: Home, tmp_path: Path) -> None:
    with _http_server(home, tmp_path / "stderr") as (url, port):
        reply = httpx.post(url, json=_INITIALIZE, headers=_HEADERS | {"Host": f"LOCALHOST:{port}"}, timeout=60)
    assert reply.status_code == 200


def _within_history(got: dict[str, Any]) -> None:
    first, newest = got["freshness"]["first_day"], got["freshness"]["newest_day"]
    outside = [day for day in got["gaps"] if not first <= day <= newest]
    assert not outside, (first, newest, outside[:5])


@pytest.mark.parametrize(("metric", "scope"), [("team_active_users", "acme"), ("interactions", "organization:acme")])
def test_gaps_of_a_team_metric_or_a_scope_lie_within_the_history(
    home: Home, tmp_path: Path, metric: str, scope: str
) -> None:
    newest = _newest_day(home, tmp_path)
    start = (newest - dt.timedelta(days=400)).isoformat()

    async def script(session: ClientSession) -> dict[str, Any]:
        arguments = {"metric": metric, "scope": scope, "start": start, "end": newest.isoformat()}
        return answer(await session.call_tool("query_metric", arguments))

    got = talk(home, script, errlog=tmp_path / "stderr")
    assert not any(row.get(metric) == 0 and row["day"] < got["freshness"]["first_day"] for row in got["rows"])
    _within_history(got)


def test_a_compare_whose_second_period_is_in_the_future_is_no_zero(home: Home, tmp_path: Path) -> None:
    newest = _newest_day(home, tmp_path)
    later = (newest + dt.timedelta(days=56)).isoformat()

    async def script(session: ClientSession) -> tuple[dict[str, Any], str]:
        arguments = {"scope": "acme", "first": newest.isoformat(), "second": later}
        daily = answer(await session.call_tool("compare_periods", arguments | {"metric": "interactions"}))
        period = refusal(await session.call_tool("compare_periods", arguments | {"metric": "team_active_users_28d"}))
        return daily, period

    daily, period = talk(home, script, errlog=tmp_path / "stderr")
    assert daily["rows"], daily
    for row in daily["rows"]:
        assert row["second_value"] is None and row["call"] is None, row
    _within_history(daily)
    # A period metric names the periods it has instead.
    assert later in period and newest.isoformat() in period, period
