"""An answer's body read within bounds: at most `max_bytes`, and whole by a deadline. httpx's
timeout bounds each read only, so without these a peer sending an endless body, or a byte at a
time, would hold a run and its memory without end."""

from __future__ import annotations

import time
from collections.abc import Callable

import httpx

__all__ = ["TooLarge", "TooSlow", "read_body"]


class TooLarge(Exception):
    """The body passed the byte limit; nothing more of it is read."""


class TooSlow(Exception):
    """The body was not whole by the deadline."""


def read_body(
    response: httpx.Response, *, max_bytes: int, deadline: float, clock: Callable[[], float] = time.monotonic
) -> bytes:
    """The body, whole; TooLarge past `max_bytes` (a Content-Length beyond it before any byte is
    read), TooSlow when a chunk arrives after `deadline` (on `clock`)."""
    said = response.headers.get("content-length", "")
    if said.isdigit() and int(said) > max_bytes:
        raise TooLarge
    chunks: list[bytes] = []
    size = 0
    for chunk in response.iter_bytes():
        size += len(chunk)
        if size > max_bytes:
            raise TooLarge
        if clock() > deadline:
            raise TooSlow
        chunks.append(chunk)
    return b"".join(chunks)
