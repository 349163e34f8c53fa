"""The bounded stdio transport: a line over the limit is skipped as it is read and answered with its
size, a line that is no message is answered with a JSON-RPC error (to its id when it says one),
and every other line is the message it carries, in order."""

from __future__ import annotations

import io
import json

import mcp_types as types
from hypothesis import given
from hypothesis import strategies as st
from mcp.shared.message import SessionMessage

from pipelines.mcp._stdio import read_line, refusal

LIMIT = 64


def _lines(wire: io.BytesIO) -> list[bytes | int]:
    """Every line of `wire` as read_line gives it: the line, or the size of one over the limit."""
    out: list[bytes | int] = []
    while line := read_line(wire, LIMIT):
        out.append(line if isinstance(line, bytes) else line.size)
    return out


@given(st.lists(st.integers(min_value=0, max_value=3 * LIMIT), max_size=12), st.booleans())
def test_each_line_is_read_whole_or_skipped_with_its_size_and_the_next_is_read_after_it(
    lengths: list[int], last_ends: bool
) -> None:
    lines = [b"x" * n + b"\n" for n in lengths]
    if lines and not last_ends:
        lines[-1] = lines[-1][:-1]  # the last line without its newline, as a closed pipe leaves it
    lines = [line for line in lines if line]
    got = _lines(io.BytesIO(b"".join(lines)))
    assert got == [line if len(line.rstrip(b"\n")) <= LIMIT else len(line.rstrip(b"\n")) for line in lines]


def test_a_line_of_exactly_the_limit_and_its_newline_is_read() -> None:
    line = b"y" * LIMIT + b"\n"
    assert _lines(io.BytesIO(line + b"z\n")) == [line, b"z\n"]


def test_a_huge_line_is_never_held_whole() -> None:
    class Counting(io.BytesIO):
        biggest = 0

        def readline(self, size: int | None = -1) -> bytes:
            line = super().readline(size)
            Counting.biggest = max(Counting.biggest, len(line))
            return line

    wire = Counting(b"{" * 5_000_000 + b"\n" + b"{}\n")
    first = read_line(wire, LIMIT)
    assert not isinstance(first, bytes) and first.size == 5_000_000
    assert read_line(wire, LIMIT) == b"{}\n"
    assert Counting.biggest <= 1 << 16


def _error(got: types.JSONRPCError | SessionMessage) -> types.JSONRPCError:
    assert isinstance(got, types.JSONRPCError), got
    return got


def test_a_message_is_passed_on() -> None:
    got = refusal(b'{"jsonrpc": "2.0", "id": 1, "method": "ping"}\n', LIMIT)
    assert isinstance(got, SessionMessage) and isinstance(got.message, types.JSONRPCRequest)
    assert got.message.method == "ping"


def test_garbage_gets_a_parse_error_without_an_id() -> None:
    for garbage in (b"\x00\xff\xfe garbage\n", b"{\n", b"\n"):
        error = _error(refusal(garbage, LIMIT))
        assert (error.id, error.error.code) == (None, types.PARSE_ERROR)
        assert error.error.message == "not JSON: each line must be one JSON-RPC 2.0 message"


def test_json_that_is_no_message_gets_an_invalid_request_error_to_its_id() -> None:
    cases = {
        b'{"jsonrpc": "2.0", "id": 7, "method": 12}\n': 7,
        b'{"jsonrpc": "1.0", "id": "a", "method": "ping"}\n': "a",
        b'{"id": true, "method": "ping"}\n': None,
        b"[1, 2, 3]\n": None,
        b'"text"\n': None,
    }
    for line, request_id in cases.items():
        error = _error(refusal(line, LIMIT))
        assert (error.id, error.error.code) == (request_id, types.INVALID_REQUEST), line


def test_a_line_over_the_limit_is_refused_naming_its_size_and_the_limit() -> None:
    line = read_line(io.BytesIO(b"a" * 1000 + b"\n"), LIMIT)
    assert not isinstance(line, bytes)
    error = _error(refusal(line, LIMIT))
    assert error.error.message == "message of 1,000 bytes refused: at most 64"
    # What the wire carries: one line of JSON.
    assert json.loads(error.model_dump_json(by_alias=True, exclude_unset=True))["error"]["code"] == -32600
