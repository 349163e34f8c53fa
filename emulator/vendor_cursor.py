"""The emulated Cursor Admin API, as its docs describe it (docs/vendors.md) under the vendor's
prefix: `GET /teams/members`, `POST /teams/daily-usage-data` (`startDate` and `endDate` in epoch
milliseconds, at most 30 days apart; without `page` and `pageSize` the active users' records
only, with both every member's, `pageSize` members a page) and `POST /teams/spend` (search, sort
and page numbers); HTTP Basic with the key as the username and no password; errors as
`{"error", "message"}`; a team's requests per minute answered 429 with `Retry-After: 60`.

A range's days are those from the day of `startDate` to the day of `endDate`, both included.
Spend's `pageSize` is not documented to have a default or a maximum: here 100, any size from 1.
"""

from __future__ import annotations

import base64
import binascii
import hmac
import json
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from emulator.state import EmulatorState
from emulator.vendor_cursor_data import CursorData
from emulator.vendor_http import CURSOR, Limiter, cursor_error
from emulator.vendor_people import day_of_ms

MAX_RANGE_DAYS = 30
_DAY_MS = 86_400_000
DEFAULT_PAGE_SIZE = 100
SORTS = ("amount", "date", "user")


class CursorRoutes:
    def __init__(self, state: EmulatorState, data: CursorData, *, api_key: str, per_minute: int) -> None:
        self.state = state
        self.data = data
        self.api_key = api_key
        self.limiter = Limiter(per_minute)

    def table(self) -> list[Route]:
        return [
            Route(CURSOR + "/teams/members", self.members, methods=["GET"]),
            Route(CURSOR + "/teams/daily-usage-data", self.daily_usage, methods=["POST"]),
            Route(CURSOR + "/teams/spend", self.spend, methods=["POST"]),
        ]

    def _refused(self, request: Request) -> Response | None:
        """401 for a key missing or wrong, 429 once the team's minute is spent."""
        scheme, _, encoded = request.headers.get("authorization", "").partition(" ")
        try:
            user, _, password = base64.b64decode(encoded.strip(), validate=True).decode().partition(":")
        except (binascii.Error, UnicodeDecodeError):
            user, password = "", ""
        if scheme.lower() != "basic" or password or not hmac.compare_digest(user.encode(), self.api_key.encode()):
            return cursor_error(401, "Unauthorized", "Invalid API key")
        if self.limiter.take(user) is not None:
            return cursor_error(
                429, "Too Many Requests", "Rate limit exceeded. Please try again later.", {"Retry-After": "60"}
            )
        return None

    async def members(self, request: Request) -> Response:
        if refused := self._refused(request):
            return refused
        return JSONResponse({"teamMembers": self.data.members()})

    async def daily_usage(self, request: Request) -> Response:
        if refused := self._refused(request):
            return refused
        body = await _body(request)
        if isinstance(body, Response):
            return body
        start, end = body.get("startDate"), body.get("endDate")
        for name, value in (("startDate", start), ("endDate", end)):
            if not _number(value):
                return _bad(f"{name} is required: a date in epoch milliseconds")
        assert isinstance(start, int | float) and isinstance(end, int | float)
        if end < start:
            return _bad("endDate must not be before startDate")
        if end - start > MAX_RANGE_DAYS * _DAY_MS:
            return _bad(f"Date range cannot exceed {MAX_RANGE_DAYS} days")
        first, last, today = day_of_ms(int(start)), day_of_ms(int(end)), self.state.today()
        period = {"startDate": start, "endDate": end}
        page, size = body.get("page"), body.get("pageSize")
        if page is None or size is None:
            records = [r for r in self.data.daily(first, last, today=today) if r["isActive"]]
            return JSONResponse({"data": records, "period": period})
        if problem := _whole("page", page) or _whole("pageSize", size):
            return problem
        roster = self.data.people.roster("cursor")
        pages = max(1, -(-len(roster) // size))
        members = roster[(page - 1) * size : page * size]
        records = self.data.daily(first, last, today=today, people=members) if members else []
        pagination = {
            "page": page,
            "pageSize": size,
            "totalUsers": len(roster),
            "totalPages": pages,
            "hasNextPage": page < pages,
            "hasPreviousPage": page > 1,
        }
        return JSONResponse({"data": records, "period": period, "pagination": pagination})

    async def spend(self, request: Request) -> Response:
        if refused := self._refused(request):
            return refused
        body = await _body(request)
        if isinstance(body, Response):
            return body
        term = body.get("searchTerm", "")
        sort_by, direction = body.get("sortBy", "date"), body.get("sortDirection", "desc")
        page, size = body.get("page", 1), body.get("pageSize", DEFAULT_PAGE_SIZE)
        if not isinstance(term, str):
            return _bad("searchTerm must be a string")
        if sort_by not in SORTS:
            return _bad(f"sortBy must be one of {', '.join(SORTS)}")
        if direction not in ("asc", "desc"):
            return _bad("sortDirection must be asc or desc")
        if problem := _whole("page", page) or _whole("pageSize", size):
            return problem
        cycle_start, members = self.data.spend(today=self.state.today())
        wanted = term.lower()
        found = [m for m in members if wanted in m["name"].lower() or wanted in m["email"].lower()]
        field = {"amount": "spendCents", "date": "_last_used", "user": "email"}[sort_by]
        found.sort(key=lambda m: m["email"])  # ties in email order, whichever the direction
        found.sort(key=lambda m: m[field], reverse=direction == "desc")
        total_pages = max(1, -(-len(found) // size))
        chunk = [{k: v for k, v in m.items() if not k.startswith("_")} for m in found[(page - 1) * size : page * size]]
        return JSONResponse(
            {
                "teamMemberSpend": chunk,
                "subscriptionCycleStart": cycle_start,
                "totalMembers": len(members),
                "totalPages": total_pages,
            }
        )


async def _body(request: Request) -> dict[str, Any] | Response:
    try:
        body = json.loads(await request.body() or b"{}")
    except ValueError:
        return _bad("Request body must be JSON")
    if not isinstance(body, dict):
        return _bad("Request body must be a JSON object")
    return body


def _whole(name: str, value: object) -> JSONResponse | None:
    if isinstance(value, int) and not isinstance(value, bool) and value >= 1:
        return None
    return _bad(f"{name} must be a whole number from 1")


def _number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and 0 <= value < 1e15


def _bad(text: str) -> JSONResponse:
    return cursor_error(400, "Bad Request", text)
