"""Attacks on the vendor guarantees from docs/vendors.md by a hostile or careless peer: 429 loops,
odd `retry-after`s, paging that never ends, a huge body, HTML and non-JSON answers, timeouts, and
the key echoed back. A strict xfail is a break still open; an unmarked test is an attack that held."""

from __future__ import annotations

import logging
import math
from collections.abc import Iterator
from datetime import date
from pathlib import Path
from typing import Any

import duckdb
import httpx
import pytest
import zstandard

from pipelines.ingest.vendors import VendorResult, ingest_vendor
from pipelines.warehouse import migrate
from tests.unit.vendors._answers import CLAUDE_KEY, CLAUDE_RECORD, CURSOR_KEY, CURSOR_MEMBERS, answer, client

DAY = date(2025, 8, 8)
GUARD = 300  # calls after which a peer gives up on its own: a client still asking had no bound
PAGE = {"data": [CLAUDE_RECORD], "has_more": False, "next_page": None}


@pytest.fixture
def conn(tmp_path: Path) -> Iterator[duckdb.DuckDBPyConnection]:
    c = duckdb.connect(str(tmp_path / "w.duckdb"))
    migrate(c)
    yield c
    c.close()


def _ingest(
    name: str, handler: Any, conn: duckdb.DuckDBPyConnection, raw: Path, sleeps: list[float] | None = None
) -> tuple[VendorResult, list[str]]:
    said: list[str] = []
    with client(name, handler, sleeps=sleeps) as c:
        result = ingest_vendor(c, conn, days=[DAY], raw_dir=raw, say=said.append)
    return result, said


def _failed_in_one_line(result: VendorResult, said: list[str]) -> None:
    assert result.status == "failed"
    assert said == [result.line] and result.line is not None
    assert "\n" not in result.line and result.line.endswith("the next run asks again")


def _everything_stored(conn: duckdb.DuckDBPyConnection, raw: Path) -> str:
    """Every value of every table, and every archived file's text."""
    out = []
    for schema, table in conn.execute("SELECT schema_name, table_name FROM duckdb_tables()").fetchall():
        out.append(repr(conn.execute(f'SELECT * FROM "{schema}"."{table}"').fetchall()))
    for path in raw.rglob("*") if raw.exists() else []:
        if path.is_file():
            data = path.read_bytes()
            if path.suffix == ".zst":
                data = zstandard.ZstdDecompressor().decompressobj().decompress(data)
            out.append(data.decode(errors="replace"))
    return "\n".join(out)


class Looping:
    """A peer giving `first` until GUARD calls, then an answer that ends any paging."""

    def __init__(self, first: Any, last: httpx.Response) -> None:
        self.first, self.last, self.calls = first, last, 0

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.calls += 1
        return self.first(self.calls) if self.calls < GUARD else self.last

    @property
    def looped(self) -> bool:
        return self.calls >= GUARD


def _limited(after: str) -> Any:
    return lambda n: answer({"error": "Too Many Requests", "message": "m"}, 429, {"Retry-After": after})


@pytest.mark.parametrize(
    "after",
    ["60", "600"],
)
def test_a_429_loop_waits_at_most_three_minutes_then_fails_in_one_line(
    after: str, conn: duckdb.DuckDBPyConnection, tmp_path: Path
) -> None:
    sleeps: list[float] = []
    peer = Looping(_limited(after), answer(CURSOR_MEMBERS))
    result, said = _ingest("cursor", peer, conn, tmp_path, sleeps)
    _failed_in_one_line(result, said)
    assert not peer.looped and sum(sleeps) <= 180


def test_a_429_loop_with_retry_after_zero_ends(conn: duckdb.DuckDBPyConnection, tmp_path: Path) -> None:
    peer = Looping(_limited("0"), answer(CURSOR_MEMBERS))
    result, said = _ingest("cursor", peer, conn, tmp_path)
    assert not peer.looped
    _failed_in_one_line(result, said)


@pytest.mark.parametrize("after", ["nan", "inf", "-5", "soon", "Wed, 21 Oct 2099 07:28:00 GMT", ""])
def test_a_429_loop_with_a_retry_after_that_is_no_wait_ends_waiting_finite_seconds(
    after: str, conn: duckdb.DuckDBPyConnection, tmp_path: Path
) -> None:
    sleeps: list[float] = []
    peer = Looping(_limited(after), answer(CURSOR_MEMBERS))
    result, said = _ingest("cursor", peer, conn, tmp_path, sleeps)
    assert not peer.looped
    assert all(math.isfinite(s) and s >= 0 for s in sleeps) and sum(sleeps) <= 180
    _failed_in_one_line(result, said)


def test_a_claude_code_cursor_that_never_ends_fails_the_day(conn: duckdb.DuckDBPyConnection, tmp_path: Path) -> None:
    peer = Looping(lambda n: answer({"data": [], "has_more": True, "next_page": f"page_{n}"}), answer(PAGE))
    result, said = _ingest("claude_code", peer, conn, tmp_path)
    assert not peer.looped
    _failed_in_one_line(result, said)


def test_cursor_spend_that_claims_endless_pages_is_read_within_its_members(
    conn: duckdb.DuckDBPyConnection, tmp_path: Path
) -> None:
    spend = {"teamMemberSpend": [], "subscriptionCycleStart": 1708992000000, "totalMembers": 2, "totalPages": 10**9}

    def first(n: int) -> httpx.Response:
        return answer(CURSOR_MEMBERS) if n == 1 else answer({"data": []}) if n == 2 else answer(spend)

    peer = Looping(first, answer({**spend, "totalPages": 1}))
    _ingest("cursor", peer, conn, tmp_path)
    assert not peer.looped


def test_a_body_without_end_is_refused_before_it_is_read_whole(conn: duckdb.DuckDBPyConnection, tmp_path: Path) -> None:
    read = [0]

    def endless() -> Iterator[bytes]:
        yield b'{"data": ['
        while read[0] < 64 * 2**20:  # a day's 1,000 records are a few MB
            read[0] += 2**20
            yield b" " * 2**20

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, stream=_Stream(endless()))

    result, said = _ingest("claude_code", handler, conn, tmp_path)
    assert read[0] < 64 * 2**20
    _failed_in_one_line(result, said)


class _Stream(httpx.SyncByteStream):
    def __init__(self, chunks: Iterator[bytes]) -> None:
        self.chunks = chunks

    def __iter__(self) -> Iterator[bytes]:
        yield from self.chunks


def test_an_html_error_page_is_tried_again_and_said_in_one_line_without_its_html(
    conn: duckdb.DuckDBPyConnection, tmp_path: Path
) -> None:
    page = b"<html>\n<head><title>502 Bad Gateway</title></head>\n<body>nginx</body>\n</html>\n"
    peer = Looping(lambda n: httpx.Response(502, content=page, headers={"content-type": "text/html"}), answer(PAGE))
    result, said = _ingest("claude_code", peer, conn, tmp_path)
    _failed_in_one_line(result, said)
    assert peer.calls == 5 and "<" not in (result.line or "")


@pytest.mark.parametrize("body", [b"<html>\n<body>Sign in</body></html>", b"", b"null", b"[1, 2]", b'{"data": 5}'])
def test_an_ok_answer_that_is_not_the_documented_json_fails_the_day_in_one_line(
    body: bytes, conn: duckdb.DuckDBPyConnection, tmp_path: Path
) -> None:
    result, said = _ingest("claude_code", lambda r: httpx.Response(200, content=body), conn, tmp_path)
    _failed_in_one_line(result, said)
    assert conn.execute("SELECT count(*) FROM vendors.claude_code_days").fetchone() == (0,)


def test_a_peer_that_times_out_is_tried_five_times_then_one_failed_line(
    conn: duckdb.DuckDBPyConnection, tmp_path: Path
) -> None:
    calls = [0]

    def slow(request: httpx.Request) -> httpx.Response:
        calls[0] += 1
        raise httpx.ReadTimeout("timed out", request=request)

    result, said = _ingest("claude_code", slow, conn, tmp_path)
    _failed_in_one_line(result, said)
    assert calls[0] == 5


def _echo(name: str, status: int) -> httpx.Response:
    key = CLAUDE_KEY if name == "claude_code" else CURSOR_KEY
    text = f"key {key} is not valid for this organization"
    if name == "claude_code":
        return answer(
            {"type": "error", "error": {"type": "api_error", "message": text}}, status, {"retry-after": "600"}
        )
    return answer({"error": text, "message": text}, status, {"Retry-After": "600"})


@pytest.mark.parametrize("status", [500, 429, 404])
@pytest.mark.parametrize("name", ["claude_code", "cursor"])
def test_a_key_echoed_in_an_error_reaches_no_line_log_or_table(
    name: str, status: int, conn: duckdb.DuckDBPyConnection, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    result, said = _ingest(name, lambda r: _echo(name, status), conn, tmp_path)
    key = CLAUDE_KEY if name == "claude_code" else CURSOR_KEY
    assert result.status == "failed"
    assert key not in " ".join(said) and key not in caplog.text
    assert key not in _everything_stored(conn, tmp_path)


@pytest.mark.parametrize("name", ["claude_code", "cursor"])
def test_a_key_echoed_in_a_refusal_reaches_no_line(name: str, conn: duckdb.DuckDBPyConnection, tmp_path: Path) -> None:
    result, said = _ingest(name, lambda r: _echo(name, 401), conn, tmp_path)
    assert result.status == "denied"
    assert (CLAUDE_KEY if name == "claude_code" else CURSOR_KEY) not in " ".join(said)


def test_a_key_echoed_in_a_record_reaches_no_table_nor_archive(conn: duckdb.DuckDBPyConnection, tmp_path: Path) -> None:
    record = {**CLAUDE_RECORD, "terminal_type": f"x-api-key: {CLAUDE_KEY}"}
    _ingest("claude_code", lambda r: answer({**PAGE, "data": [record]}), conn, tmp_path)
    assert CLAUDE_KEY not in _everything_stored(conn, tmp_path)
