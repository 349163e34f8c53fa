"""How a report's files go out: a pre-generated NDJSON file cut into byte ranges at line ends,
lines joined into ~1 MB chunks, and the streamed response with its Content-Length (a truncation
fault cuts it short and drops the connection)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from starlette.responses import Response
from starlette.types import Receive, Scope, Send

CHUNK = 1024 * 1024


class ReportFile:
    """A pre-generated NDJSON file (a user-level report by default) split at line boundaries into byte ranges."""

    def __init__(self, path: Path, lines_per_file: int) -> None:
        self.path = path
        self.ranges: list[tuple[int, int]] = []
        start = offset = lines = 0
        with path.open("rb") as handle:
            for line in handle:
                offset += len(line)
                lines += 1
                if lines == lines_per_file:
                    self.ranges.append((start, offset))
                    start, lines = offset, 0
        if lines or not self.ranges:
            self.ranges.append((start, offset))

    def chunks(self, index: int) -> Iterator[bytes]:
        start, stop = self.ranges[index]
        with self.path.open("rb") as handle:
            handle.seek(start)
            left = stop - start
            while left > 0:
                chunk = handle.read(min(CHUNK, left))
                if not chunk:
                    return
                left -= len(chunk)
                yield chunk


def batched(lines: Iterator[bytes]) -> Iterator[bytes]:
    buffer: list[bytes] = []
    size = 0
    for line in lines:
        buffer.append(line)
        size += len(line)
        if size >= CHUNK:
            yield b"".join(buffer)
            buffer, size = [], 0
    if buffer:
        yield b"".join(buffer)


class FileResponse(Response):
    """Streams a report file with its Content-Length; a truncation fault cuts it short."""

    def __init__(self, spool: Callable[[], tuple[bytes | None, Any]], *, truncate: bool) -> None:
        """`spool` makes the file: its bytes, or a temporary file holding them (closed here)."""
        super().__init__(status_code=200, media_type="application/x-ndjson")
        self._spool, self._truncate = spool, truncate

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        data, handle = await asyncio.to_thread(self._spool)
        try:
            size = len(data) if data is not None else _size_of(handle)
            self.headers["content-length"] = str(size)
            await send({"type": "http.response.start", "status": 200, "headers": self.raw_headers})
            limit = size // 2 if self._truncate else size
            sent = 0
            while sent < limit:
                if data is not None:
                    chunk = data[sent : min(limit, sent + CHUNK)]
                else:
                    chunk = await asyncio.to_thread(handle.read, min(CHUNK, limit - sent))
                if not chunk:
                    break
                sent += len(chunk)
                await send({"type": "http.response.body", "body": chunk, "more_body": True})
            if self._truncate:
                await close_connection(scope)
                return
            await send({"type": "http.response.body", "body": b"", "more_body": False})
        finally:
            if handle is not None:
                handle.close()


def _size_of(handle: Any) -> int:
    handle.seek(0, 2)
    size = handle.tell()
    handle.seek(0)
    return size


async def close_connection(scope: Scope) -> None:
    """Close the client's connection at once, whatever was sent so far."""
    transport = scope.get("emulator.transport")
    if transport is not None:
        transport.close()
    # Let the server notice the disconnect so it neither answers 500 nor logs an error.
    for _ in range(3):
        await asyncio.sleep(0)
