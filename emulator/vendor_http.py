"""What the vendors' routes share: where they are served, a key's requests per minute, and each
vendor's error body (docs/vendors.md, "What each vendor sends")."""

from __future__ import annotations

import hashlib
import math
import threading
import time
from typing import Any

from starlette.responses import JSONResponse

# The emulator serves each vendor's API under its own prefix of the one loopback server: a
# vendor's base URL is the emulator's plus the prefix, and its documented paths follow it.
PREFIX = "/vendors"
ANTHROPIC = f"{PREFIX}/anthropic"
CURSOR = f"{PREFIX}/cursor"
_WINDOW_SECONDS = 60


class Limiter:
    """A fixed window of a minute per key, from the key's first request in it: `take` counts a
    request and says how many seconds to wait when the window's requests are spent."""

    def __init__(self, per_minute: int) -> None:
        self.per_minute = per_minute
        self._lock = threading.Lock()
        self._windows: dict[str, tuple[float, int]] = {}

    def take(self, who: str) -> int | None:
        now = time.monotonic()
        with self._lock:
            start, used = self._windows.get(who, (now, 0))
            if now >= start + _WINDOW_SECONDS:
                start, used = now, 0
            if used >= self.per_minute:
                self._windows[who] = (start, used)
                return max(1, math.ceil(start + _WINDOW_SECONDS - now))
            self._windows[who] = (start, used + 1)
            return None


def anthropic_error(status: int, kind: str, text: str, headers: dict[str, str] | None = None) -> JSONResponse:
    """Anthropic's error shape, with the request id in the body and the `request-id` header."""
    request_id = "req_" + hashlib.sha256(f"{time.time_ns()}:{kind}".encode()).hexdigest()[:24]
    body: dict[str, Any] = {"type": "error", "error": {"type": kind, "message": text}, "request_id": request_id}
    return JSONResponse(body, status_code=status, headers={"request-id": request_id, **(headers or {})})


def cursor_error(status: int, error: str, text: str, headers: dict[str, str] | None = None) -> JSONResponse:
    """Cursor's error shape: `{"error": ..., "message": ...}`."""
    return JSONResponse({"error": error, "message": text}, status_code=status, headers=headers)
