"""The seat listings' routes (docs/extensions.md): who may list an organization's or enterprise's
seats, and their paging; emulator/seats.py lists the seats."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from functools import partial
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from emulator.answers import base_url, json_response, message, page_params, principal_of, with_links
from emulator.reports import Reports
from emulator.seats import DEFAULT_PER_PAGE as SEATS_PER_PAGE
from emulator.seats import enterprise_grants, enterprise_seat_count, enterprise_seat_records, seat_count, seat_records
from emulator.state import EmulatorState


class SeatRoutes:
    def __init__(self, state: EmulatorState, reports: Reports) -> None:
        self.state = state
        self.reports = reports

    async def seats(self, request: Request) -> Response:
        """The organization's seats (docs/extensions.md), paged by the Link header."""
        data = self.reports.data_for("organization", request.path_params["org"])
        if data is None:
            return message(404, "Not Found")
        extra = self.state.config.unassigned_seats + self.state.config.unlandable_seats
        return await self._seat_listing(
            request,
            owner=f"an organization owner or billing manager of {data.org}",
            list_seats=partial(seat_records, data, **self._extra_seats()),
            total=seat_count(data) + extra,
            entries=seat_count(data) + extra,
        )

    async def enterprise_seats(self, request: Request) -> Response:
        """The enterprise's seats: one per granting organization or enterprise team of a user,
        `total_seats` counting each user once (docs/extensions.md)."""
        name = request.path_params["name"]
        data = self.reports.data_for("enterprise", name)
        if data is None:
            return message(404, "Not Found")
        extra = self.state.config.unassigned_seats + self.state.config.unlandable_seats
        return await self._seat_listing(
            request,
            owner=f"an enterprise owner or billing manager of {name}",
            list_seats=partial(enterprise_seat_records, data, **self._extra_seats()),
            total=enterprise_seat_count(data) + extra,
            entries=len(enterprise_grants(data)) + extra,
        )

    def _extra_seats(self) -> dict[str, int]:
        """The seats after the users' in both listings (EmulatorConfig.unassigned_seats, unlandable_seats)."""
        return {"unassigned": self.state.config.unassigned_seats, "unlandable": self.state.config.unlandable_seats}

    async def _seat_listing(
        self, request: Request, *, owner: str, list_seats: Callable[..., list[dict[str, Any]]], total: int, entries: int
    ) -> Response:
        principal = principal_of(request)
        if principal.kind == "anonymous":
            return message(401, "Requires authentication")
        if not (principal.owner or principal.metrics_permission):
            return message(
                403, f"Resource not accessible: you must be {owner} to list its {self.state.wire.product} seats"
            )
        paging = page_params(request, default_per_page=SEATS_PER_PAGE)
        if isinstance(paging, Response):
            return paging
        page, per_page = paging
        start = (page - 1) * per_page
        # The first listing of a day finds every user's last activity (cached per day): off the loop.
        records = await asyncio.to_thread(
            list_seats, today=self.state.today(), base_url=base_url(request), start=start, stop=start + per_page
        )
        response = json_response(request, {"total_seats": total, "seats": records})
        # Pages hold seats, of which a user may have several: the last page follows the entries.
        return with_links(request, response, page=page, per_page=per_page, total=entries)
