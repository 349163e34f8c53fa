"""The emulated Anthropic Admin API's Claude Code analytics, as its docs describe it
(docs/vendors.md): `GET /v1/organizations/usage_report/claude_code` under the vendor's prefix,
the Admin API key in `x-api-key`, one UTC day per request (`starting_at`), `limit` records a
page (default 20, 1 to 1000) and an opaque `page` cursor from `next_page`, errors in
Anthropic's shape, a key's requests per minute answered 429 `rate_limit_error` with
`retry-after`.

A cursor holds the day, the offset and the day the paging began on, so every page of one paging
answers as of that day: a day still growing does not shift records between pages.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
from datetime import date

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from emulator.state import EmulatorState
from emulator.vendor_claude_data import ClaudeCodeData
from emulator.vendor_http import ANTHROPIC, Limiter, anthropic_error

PATH = "/v1/organizations/usage_report/claude_code"
DEFAULT_LIMIT, MAX_LIMIT = 20, 1000


class ClaudeCodeRoutes:
    def __init__(self, state: EmulatorState, data: ClaudeCodeData, *, admin_key: str, per_minute: int) -> None:
        self.state = state
        self.data = data
        self.admin_key = admin_key
        self.limiter = Limiter(per_minute)
        self._cursor_key = hashlib.sha256(f"cursor:{admin_key}".encode()).digest()

    def table(self) -> list[Route]:
        return [Route(ANTHROPIC + PATH, self.report, methods=["GET"])]

    async def report(self, request: Request) -> Response:
        given = request.headers.get("x-api-key", "")
        if not hmac.compare_digest(given.encode(), self.admin_key.encode()):
            return anthropic_error(401, "authentication_error", "invalid x-api-key")
        wait = self.limiter.take(given)
        if wait is not None:
            return anthropic_error(
                429,
                "rate_limit_error",
                "Number of requests has exceeded your rate limit. Please try again later.",
                {"retry-after": str(wait)},
            )
        query = request.query_params
        raw_day = query.get("starting_at")
        if raw_day is None:
            return _invalid("starting_at: Field required")
        try:
            day = date.fromisoformat(raw_day)
        except ValueError:
            return _invalid(f"starting_at: {raw_day!r} is not a UTC date in YYYY-MM-DD format")
        if len(raw_day) != 10:
            return _invalid(f"starting_at: {raw_day!r} is not a UTC date in YYYY-MM-DD format")
        try:
            limit = int(query.get("limit", DEFAULT_LIMIT))
        except ValueError:
            return _invalid("limit: Input should be a valid integer")
        if not 1 <= limit <= MAX_LIMIT:
            return _invalid(f"limit: Input should be between 1 and {MAX_LIMIT}")
        offset, as_of = 0, self.state.today()
        if (page := query.get("page")) is not None:
            opened = self._open(page, day)
            if opened is None:
                return _invalid("page: Invalid pagination cursor for this request")
            offset, as_of = opened
        records = self.data.records(day, today=as_of)
        chunk = records[offset : offset + limit]
        more = offset + limit < len(records)
        return JSONResponse(
            {"data": chunk, "has_more": more, "next_page": self._seal(day, offset + limit, as_of) if more else None}
        )

    def _seal(self, day: date, offset: int, as_of: date) -> str:
        text = f"{day.isoformat()}|{offset}|{as_of.isoformat()}"
        mac = hmac.new(self._cursor_key, text.encode(), "sha256").hexdigest()[:16]
        return "page_" + base64.urlsafe_b64encode(f"{text}|{mac}".encode()).decode()

    def _open(self, page: str, day: date) -> tuple[int, date] | None:
        """(offset, as-of day) of a cursor this emulator made for `day`; None for any other."""
        try:
            text = base64.urlsafe_b64decode(page.removeprefix("page_").encode()).decode()
            cursor_day, offset, as_of, mac = text.split("|")
        except ValueError:
            return None
        body = f"{cursor_day}|{offset}|{as_of}"
        expected = hmac.new(self._cursor_key, body.encode(), "sha256").hexdigest()[:16]
        if not hmac.compare_digest(mac, expected) or cursor_day != day.isoformat():
            return None
        return int(offset), date.fromisoformat(as_of)


def _invalid(text: str) -> JSONResponse:
    return anthropic_error(400, "invalid_request_error", text)
