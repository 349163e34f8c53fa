"""The billing usage routes, in both dialects (docs/emulator.md, "Billing"): AI-credit and
premium-request usage by product, SKU and model, billing usage by day, organization and
repository, and its summary by product and SKU; of an enterprise, an organization or a user."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from functools import partial
from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from emulator.answers import message
from emulator.billing_answers import billing_denied, billing_json, period_of
from emulator.billing_ledger import Ledger, Scope, items, select
from emulator.billing_world import Line
from emulator.state import EmulatorState

# endpoint -> (the public service's path after the scope's, the service dialect's)
USAGE_PATHS: dict[str, tuple[str, str]] = {
    "ai_credit": ("/settings/billing/ai_credit/usage", "/billing/ai-credits/usage"),
    "premium_request": ("/settings/billing/premium_request/usage", "/billing/premium-requests/usage"),
    "usage": ("/settings/billing/usage", "/billing/usage"),
    "summary": ("/settings/billing/usage/summary", "/billing/usage/summary"),
}
# scope -> (the public service's path prefix, the service dialect's)
SCOPE_PREFIXES: dict[str, tuple[str, str]] = {
    "enterprise": ("/enterprises/{name}", "/enterprises/{name}"),
    "organization": ("/organizations/{name}", "/orgs/{name}"),
    "user": ("/users/{name}", "/users/{name}"),
}
# The filters each scope's usage answers accept, echoed in the answer when given.
_ECHOED = ("user", "organization", "product", "model")
_SCOPE_KEY = {"enterprise": "enterprise", "organization": "organization", "user": "user"}


def dialect_path(paths: tuple[str, str], dialect: str) -> str:
    return paths[0] if dialect == "github" else paths[1]


class BillingUsageRoutes:
    def __init__(self, state: EmulatorState, ledger: Ledger) -> None:
        self.state = state
        self.ledger = ledger
        self._repos: dict[str, list[str]] = {}

    def table(self) -> list[Route]:
        dialect = self.state.config.dialect
        handlers: dict[str, Callable[[Request, Scope], Awaitable[Response]]] = {
            "ai_credit": partial(self._meter, "ai_credit"),
            "premium_request": partial(self._meter, "premium_request"),
            "usage": self._usage,
            "summary": self._summary,
        }
        return [
            Route(
                dialect_path(SCOPE_PREFIXES[kind], dialect) + dialect_path(paths, dialect),
                partial(self._scoped, kind, handlers[endpoint]),
            )
            for endpoint, paths in USAGE_PATHS.items()
            for kind in SCOPE_PREFIXES
        ]

    async def _scoped(
        self, kind: str, handler: Callable[[Request, Scope], Awaitable[Response]], request: Request
    ) -> Response:
        if problem := billing_denied(request, self.state):
            return problem
        scope = self.ledger.scope(kind, request.path_params["name"])
        if scope is None:
            return message(404, "Not Found")
        return await handler(request, scope)

    def _product(self, word: str) -> str:
        """A product or SKU in the dialect's words (`assistant` is `copilot` on the public service)."""
        return self.state.wire.record_name(word)

    async def _lines(self, request: Request, scope: Scope) -> tuple[list[Line], dict[str, Any]] | Response:
        period = period_of(request, self.state.today())
        if isinstance(period, Response):
            return period
        lines = await asyncio.to_thread(self.ledger.lines, scope, period.start, period.end)
        query = {k: v for k, v in request.query_params.items() if k not in ("year", "month", "day")}
        kept = select(lines, scope=scope, query=query, product_of=self._product)
        if isinstance(kept, str):
            return message(404 if kept.startswith("No cost center") else 400, kept)
        head: dict[str, Any] = {"timePeriod": period.time_period(), _SCOPE_KEY[scope.kind]: scope.name}
        head |= {name: query[name] for name in _ECHOED if name in query and name != scope.kind}
        wanted = query.get("cost_center_id")
        if wanted is not None and scope.centers is not None and wanted in scope.centers.by_id:
            center = scope.centers.by_id[wanted]
            head["costCenter"] = {"id": center.id, "name": center.name}
        return kept, head

    async def _meter(self, meter: str, request: Request, scope: Scope) -> Response:
        found = await self._lines(request, scope)
        if isinstance(found, Response):
            return found
        lines, head = found
        kept = [line for line in lines if line.meter.name == meter]
        usage = items(
            kept,
            by=lambda line: (self._product(line.product), self._product(line.sku), line.model),
            names=("product", "sku", "model"),
        )
        return billing_json(request, self.state, head | {"usageItems": usage})

    def repository_of(self, line: Line) -> str:
        """The repository a coding agent's line ran in (one of its organization's, by user and
        day), "" for every other line."""
        if line.sku != "coding_agent_ai_credit" and line.sku != "coding_agent_premium_request":
            return ""
        if line.org not in self._repos:
            self._repos[line.org] = [r.full_name for r in self.state.world.org_repos(line.org)]
        repos = self._repos[line.org]
        return repos[(line.day.toordinal() + abs(line.user)) % len(repos)] if repos else ""

    async def _usage(self, request: Request, scope: Scope) -> Response:
        found = await self._lines(request, scope)
        if isinstance(found, Response):
            return found
        lines, _ = found
        grouped = items(
            lines,
            by=lambda line: (
                line.day.isoformat(),
                self._product(line.product),
                self._product(line.sku),
                line.org,
                self.repository_of(line),
            ),
            names=("date", "product", "sku", "organizationName", "repositoryName"),
        )
        usage = [
            {
                "date": item["date"],
                "product": item["product"],
                "sku": item["sku"],
                "quantity": item["grossQuantity"],
                "unitType": item["unitType"],
                "pricePerUnit": item["pricePerUnit"],
                "grossAmount": item["grossAmount"],
                "discountAmount": item["discountAmount"],
                "netAmount": item["netAmount"],
                "organizationName": item["organizationName"],
                "repositoryName": item["repositoryName"],
            }
            for item in grouped
        ]
        return billing_json(request, self.state, {"usageItems": usage})

    async def _summary(self, request: Request, scope: Scope) -> Response:
        found = await self._lines(request, scope)
        if isinstance(found, Response):
            return found
        lines, head = found
        wanted = request.query_params.get("repository")
        if wanted is not None:
            lines = [line for line in lines if self.repository_of(line).lower() == wanted.lower()]
        usage = items(
            lines, by=lambda line: (self._product(line.product), self._product(line.sku)), names=("product", "sku")
        )
        return billing_json(request, self.state, head | {"usageItems": usage})
