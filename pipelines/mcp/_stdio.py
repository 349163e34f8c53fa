"""MCP over stdin and stdout, bounded: one JSON-RPC message a line, none longer than a limit.

The SDK's own stdio transport reads a line whole however long it is, and drops a line that is
no message without a word. Here a line over the limit is skipped as it is read (never held), and
a line that is no message gets a JSON-RPC error naming what was wrong, so the client hears why
and the server reads on.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from typing import BinaryIO

import anyio
import mcp_types as types
from anyio.abc import ObjectReceiveStream, ObjectSendStream
from mcp.shared.message import SessionMessage
from pydantic import ValidationError

# What is read from stdin at a time while skipping the rest of a line over the limit.
_SKIP_CHUNK = 1 << 16


class _TooLong:
    """A line over the limit, skipped: how many bytes it had."""

    def __init__(self, size: int) -> None:
        self.size = size


def read_line(wire: BinaryIO, limit: int) -> bytes | _TooLong:
    """The next line of `wire` (b"" at its end), or, when its message (the line without its
    newline) is longer than `limit` bytes, the message's size, its bytes read and dropped a chunk
    at a time."""
    line = wire.readline(limit + 1)
    if len(line) <= limit or line.endswith(b"\n"):
        return line
    size = len(line)
    while chunk := wire.readline(_SKIP_CHUNK):
        if chunk.endswith(b"\n"):
            return _TooLong(size + len(chunk) - 1)
        size += len(chunk)
    return _TooLong(size)


def refusal(line: bytes | _TooLong, limit: int) -> types.JSONRPCError | SessionMessage:
    """The message a line carries, or the error that answers it: what was wrong, in one line,
    to the request's id when the line says one."""
    if isinstance(line, _TooLong):
        return _error(None, types.INVALID_REQUEST, f"message of {line.size:,} bytes refused: at most {limit:,}")
    text = line.decode("utf-8", errors="replace")
    try:
        return SessionMessage(types.jsonrpc_message_adapter.validate_json(text, by_name=False))
    except ValidationError:
        pass
    try:
        parsed = json.loads(text)
    except (ValueError, RecursionError):  # RecursionError: nesting deeper than Python's parser goes
        return _error(None, types.PARSE_ERROR, "not JSON: each line must be one JSON-RPC 2.0 message")
    request_id = parsed.get("id") if isinstance(parsed, dict) else None
    if not isinstance(request_id, int | str) or isinstance(request_id, bool):
        request_id = None
    return _error(request_id, types.INVALID_REQUEST, "not a JSON-RPC 2.0 request, notification or response of MCP")


def _error(request_id: int | str | None, code: int, message: str) -> types.JSONRPCError:
    return types.JSONRPCError(jsonrpc="2.0", id=request_id, error=types.ErrorData(code=code, message=message))


@asynccontextmanager
async def bounded_stdio(
    wire_in: BinaryIO, wire_out: BinaryIO, *, limit: int
) -> AsyncIterator[tuple[ObjectReceiveStream[SessionMessage | Exception], ObjectSendStream[SessionMessage]]]:
    """The server's read and write streams over `wire_in` and `wire_out`; the read stream ends
    at the end of `wire_in`."""
    read_send, read_receive = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    write_send, write_receive = anyio.create_memory_object_stream[SessionMessage](0)
    answers = write_send.clone()  # the reader answers a line that is no message itself

    async def reader() -> None:
        async with read_send, answers:
            while line := await anyio.to_thread.run_sync(read_line, wire_in, limit, abandon_on_cancel=True):
                got = refusal(line, limit)
                if isinstance(got, SessionMessage):
                    await read_send.send(got)
                else:
                    await answers.send(SessionMessage(got))

    async def writer() -> None:
        async with write_receive:
            async for message in write_receive:
                data = message.message.model_dump_json(by_alias=True, exclude_unset=True).encode() + b"\n"
                await anyio.to_thread.run_sync(_write, wire_out, data)

    async with anyio.create_task_group() as tasks:
        tasks.start_soon(reader)
        tasks.start_soon(writer)
        yield read_receive, write_send


def _write(wire: BinaryIO, data: bytes) -> None:
    wire.write(data)
    wire.flush()


@contextmanager
def claimed_stdio() -> Iterator[tuple[BinaryIO, BinaryIO]]:
    """stdin and a private copy of stdout, with stdout itself pointed at stderr meanwhile: a stray
    print (a library's progress bar) would otherwise land in the protocol's stream."""
    out = sys.stdout.fileno()
    sys.stdout.flush()
    wire_fd = os.dup(out)
    os.dup2(sys.stderr.fileno(), out)
    try:
        with os.fdopen(wire_fd, "wb", closefd=False) as wire_out:
            yield sys.stdin.buffer, wire_out
    finally:
        sys.stdout.flush()
        os.dup2(wire_fd, out)
        os.close(wire_fd)
