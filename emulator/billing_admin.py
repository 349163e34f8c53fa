"""The enterprise's billing settings routes (cost centers, budgets and their user states), an
organization's seat breakdown and policies, and the emulator's own billing control answer
(`/_emulator/billing`: a scope-month's billed total and whether it is closed)."""

from __future__ import annotations

import asyncio
from datetime import date
from decimal import Decimal
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from emulator.answers import base_url, message, page_params
from emulator.billing_answers import billing_denied, billing_json, wire_json
from emulator.billing_centers import Centers
from emulator.billing_ledger import Ledger, billed_total
from emulator.billing_usage import SCOPE_PREFIXES, dialect_path
from emulator.billing_world import month_start
from emulator.seats import seat_count, seat_records
from emulator.state import EmulatorState

BUDGETS_PER_PAGE = 10
# The organization's assistant policies, as the seat breakdown answer states them.
POLICIES = {
    "public_code_suggestions": "block",
    "ide_chat": "enabled",
    "platform_chat": "enabled",
    "cli": "enabled",
    "seat_management_setting": "assign_selected",
    "plan_type": "business",
}


def settings_prefix(dialect: str) -> str:
    return dialect_path(SCOPE_PREFIXES["enterprise"], dialect) + (
        "/settings/billing" if dialect == "github" else "/billing"
    )


class BillingAdminRoutes:
    def __init__(self, state: EmulatorState, ledger: Ledger) -> None:
        self.state = state
        self.ledger = ledger

    def table(self) -> list[Route]:
        prefix = settings_prefix(self.state.config.dialect)
        product = self.state.wire.product
        return [
            Route(f"{prefix}/cost-centers", self.cost_centers),
            Route(f"{prefix}/cost-centers/{{cost_center_id}}", self.cost_center),
            Route(f"{prefix}/budgets", self.budgets),
            Route(f"{prefix}/budgets/{{budget_id}}", self.budget),
            Route(f"{prefix}/budgets/{{budget_id}}/user-states", self.user_states),
            Route(f"/orgs/{{org}}/{product}/billing", self.seat_breakdown),
            Route("/_emulator/billing", self.control),
        ]

    def _centers(self, request: Request) -> Centers | Response:
        if problem := billing_denied(request, self.state):
            return problem
        scope = self.ledger.scope("enterprise", request.path_params["name"])
        if scope is None or scope.centers is None:
            return message(404, "Not Found")
        return scope.centers

    async def cost_centers(self, request: Request) -> Response:
        centers = self._centers(request)
        if isinstance(centers, Response):
            return centers
        wanted = request.query_params.get("state")
        records = await asyncio.to_thread(centers.center_records, self.state.today(), wanted)
        return billing_json(request, self.state, {"costCenters": records})

    async def cost_center(self, request: Request) -> Response:
        centers = self._centers(request)
        if isinstance(centers, Response):
            return centers
        records = await asyncio.to_thread(centers.center_records, self.state.today(), None)
        found = next((r for r in records if r["id"] == request.path_params["cost_center_id"]), None)
        if found is None:
            return message(404, "Not Found")
        if "page" in request.query_params or "per_page" in request.query_params:
            paging = page_params(request, default_per_page=30)
            if isinstance(paging, Response):
                return paging
            page, per_page = paging
            resources = found["resources"]
            found["resources"] = resources[(page - 1) * per_page : page * per_page]
            found["has_next_page"] = page * per_page < len(resources)
        return billing_json(request, self.state, found)

    async def _budget_list(self, request: Request, centers: Centers) -> list[dict[str, Any]]:
        name = request.path_params["name"]
        return await asyncio.to_thread(centers.budgets, self.state.today(), name)

    async def budgets(self, request: Request) -> Response:
        """The budgets, paged; `scope` keeps one kind; `user` keeps those that apply to the user
        (the multi-user budget and the user's own) and names the user's effective budget."""
        centers = self._centers(request)
        if isinstance(centers, Response):
            return centers
        budgets = await self._budget_list(request, centers)
        scope, user = request.query_params.get("scope"), request.query_params.get("user")
        if scope is not None:
            budgets = [b for b in budgets if b["budget_scope"] == scope]
        if user is None:
            return self._page(request, "budgets", budgets)
        states = await asyncio.to_thread(centers.user_states, self.state.today(), request.path_params["name"])
        state = next((s for s in states if s["user"].lower() == user.lower()), None)
        if state is None:
            return message(404, f"No billed user {user!r} in enterprise {request.path_params['name']}")
        mine = [
            b
            for b in budgets
            if b["budget_scope"] == "multi_user_customer"
            or (b["budget_scope"] == "user" and b["user"] == state["user"])
        ]
        multi = next(b for b in await self._budget_list(request, centers) if b["budget_scope"] == "multi_user_customer")
        effective = {
            "id": state.get("override_budget_id", multi["id"]),
            "budget_amount": state["target_amount"],
            "consumed_amount": state["consumed_amount"],
        }
        return self._page(request, "budgets", mine, {"user": state["user"], "effective_budget": effective})

    def _page(
        self, request: Request, field: str, rows: list[dict[str, Any]], extra: dict[str, Any] | None = None
    ) -> Response:
        paging = page_params(request, default_per_page=BUDGETS_PER_PAGE)
        if isinstance(paging, Response):
            return paging
        page, per_page = paging
        shown = rows[(page - 1) * per_page : page * per_page]
        body = {field: shown, **(extra or {}), "has_next_page": page * per_page < len(rows), "total_count": len(rows)}
        return billing_json(request, self.state, body)

    async def _budget_of_path(self, request: Request) -> tuple[Centers, dict[str, Any]] | Response:
        """The enterprise's cost center book and the budget the path names, or the answer refusing it."""
        centers = self._centers(request)
        if isinstance(centers, Response):
            return centers
        budgets = await self._budget_list(request, centers)
        found = next((b for b in budgets if b["id"] == request.path_params["budget_id"]), None)
        return message(404, "Not Found") if found is None else (centers, found)

    async def budget(self, request: Request) -> Response:
        named = await self._budget_of_path(request)
        return named if isinstance(named, Response) else billing_json(request, self.state, named[1])

    async def user_states(self, request: Request) -> Response:
        named = await self._budget_of_path(request)
        if isinstance(named, Response):
            return named
        centers, found = named
        if found["budget_scope"] != "multi_user_customer":
            return message(404, f"Budget {found['id']} is not a multi-user budget: it has no user states")
        states = await asyncio.to_thread(centers.user_states, self.state.today(), request.path_params["name"])
        query = request.query_params
        user = query.get("user")
        if user is not None:
            states = [s for s in states if s["user"].lower() == user.lower()]
        try:
            low, high = int(query.get("threshold_lower_bound", 0)), int(query.get("threshold_upper_bound", 10**9))
        except ValueError:
            return message(422, "threshold_lower_bound and threshold_upper_bound must be integers (percent)")
        states = [s for s in states if low <= _percent(s) <= high]
        if query.get("sort_order") in ("0", "1"):  # by consumption against the target; 0 descending
            states.sort(key=_percent, reverse=query["sort_order"] == "0")
        return self._page(request, "user_states", states)

    async def seat_breakdown(self, request: Request) -> Response:
        """The organization's seats this billing cycle (the calendar month), counted from its
        seat listing (emulator/seats.py), and its policies."""
        if problem := billing_denied(request, self.state):
            return problem
        data = self.ledger.reports.data_for("organization", request.path_params["org"])
        if data is None:
            return message(404, "Not Found")
        config, today = self.state.config, self.state.today()
        extra = {"unassigned": config.unassigned_seats, "unlandable": config.unlandable_seats}
        total = seat_count(data) + config.unassigned_seats + config.unlandable_seats
        seats = await asyncio.to_thread(
            seat_records, data, today=today, base_url=base_url(request), start=0, stop=total, **extra
        )
        cycle = month_start(today).isoformat()
        active = sum(1 for s in seats if (s["last_activity_at"] or "") >= cycle)
        breakdown = {
            "total": total,
            "added_this_cycle": sum(1 for s in seats if s["created_at"] >= cycle),
            "pending_cancellation": sum(1 for s in seats if s["pending_cancellation_date"]),
            "pending_invitation": 0,
            "active_this_cycle": active,
            "inactive_this_cycle": total - active,
        }
        return billing_json(request, self.state, {"seat_breakdown": breakdown, **POLICIES})

    async def control(self, request: Request) -> Response:
        """The billed total of a scope (organization, enterprise or user) and month, and its
        closing; amounts as decimal strings, exact."""
        query = request.query_params
        try:
            year, month = int(query["year"]), int(query["month"])
            date(year, month, 1)
        except (KeyError, ValueError):
            return message(422, "billing control needs scope, name, year and month (integers)")
        scope = self.ledger.scope(query.get("scope", ""), query.get("name", ""))
        if scope is None:
            return message(404, "no such scope: scope organization|enterprise|user and its name")
        total = await asyncio.to_thread(billed_total, self.ledger, scope, year, month)
        return JSONResponse(wire_json(_strings(total), "service"))


def _percent(state: dict[str, Any]) -> Decimal:
    """A user state's consumption as a percentage of its target."""
    consumed: Decimal = state["consumed_amount"]
    return Decimal(100) * consumed / Decimal(state["target_amount"])


def _strings(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _strings(v) for k, v in value.items()}
    return str(value) if isinstance(value, Decimal) else value
