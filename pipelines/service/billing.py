"""The billed usage of a scope: AI-credit and premium-request usage per day (unfiltered or per
cost center), billing usage lines of a month, and the usage summary per day (docs/billing.md).

Paths and wire names are billing_wire.py's. Money arrives as JSON numbers and is parsed as
Decimal, never float. Errors are the client's: a 403 is PermissionDenied, its hint naming who
may read billing; a month older than the service keeps is a 400 (RequestFailed).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal
from typing import Any, cast
from urllib.parse import quote

from pipelines.service.billing_wire import Dialect, Scope, billing_path, field, wire_name
from pipelines.service.client import ServiceClient
from pipelines.service.errors import MalformedResponse, NotFound

__all__ = ["NO_COST_CENTER", "UsageAnswer", "cost_center_ids", "fetch_usage", "parse_usage", "service_today"]

# The cost_center_id filter value naming usage in no cost center.
NO_COST_CENTER = "none"


@dataclass(frozen=True)
class UsageAnswer:
    """One usage answer: its items under their wire names (numbers as Decimal or int), the
    envelope's fields, and the service's clock when it answered."""

    items: tuple[dict[str, Any], ...]
    envelope: dict[str, Any]
    served_at: datetime | None


def _dialect(client: ServiceClient) -> Dialect:
    return cast(Dialect, client.dialect.name)


def parse_usage(body: bytes, *, dialect: Dialect, url: str, served_at: datetime | None = None) -> UsageAnswer:
    """A usage answer's body: every non-integer number a Decimal."""
    try:
        decoded = json.loads(body, parse_float=Decimal)
    except ValueError:
        decoded = None
    items = field(dialect, decoded, "usageItems") if isinstance(decoded, dict) else None
    if not isinstance(items, list) or not all(isinstance(item, dict) for item in items):
        raise MalformedResponse(
            method="GET", url=url, status=200, message="a billing usage answer without a usageItems list"
        )
    envelope = {k: v for k, v in cast(dict[str, Any], decoded).items() if k != wire_name(dialect, "usageItems")}
    return UsageAnswer(items=tuple(items), envelope=envelope, served_at=served_at)


def fetch_usage(
    client: ServiceClient,
    *,
    scope: Scope,
    scope_name: str,
    endpoint: str,
    year: int,
    month: int,
    day: int | None = None,
    cost_center_id: str | None = None,
) -> UsageAnswer:
    """One usage answer of `endpoint` (ai_credit_usage, premium_request_usage, usage,
    usage_summary) for a month, or a day of it; per cost center when `cost_center_id` is given
    (NO_COST_CENTER: the usage in none)."""
    params: dict[str, Any] = {"year": year, "month": month}
    if day is not None:
        params["day"] = day
    if cost_center_id is not None:
        params["cost_center_id"] = cost_center_id
    path = billing_path(_dialect(client), scope, quote(scope_name, safe=""), endpoint)
    # Never conditional: an open month's day answers more later under the same URL.
    answer = client.get(path=path, params=params, conditional=False)
    return parse_usage(answer.body, dialect=_dialect(client), url=answer.url, served_at=answer.served_at)


def cost_center_ids(client: ServiceClient, enterprise: str) -> list[str]:
    """The ids of the enterprise's cost centers, as its cost-centers listing gives them."""
    dialect = _dialect(client)
    path = billing_path(dialect, "enterprise", quote(enterprise, safe=""), "cost_centers")
    body = client.get_json(path=path, conditional=False)
    centers = field(dialect, body, "costCenters") if isinstance(body, Mapping) else None
    if not isinstance(centers, list):
        raise MalformedResponse(method="GET", url=path, status=200, message="a cost-centers answer without a list")
    return [str(center["id"]) for center in centers if isinstance(center, Mapping) and "id" in center]


def service_today(client: ServiceClient) -> date | None:
    """The service's day now (the Date header of its /rate_limit answer, which costs no budget):
    which months are open is judged on its clock. None when it does not say."""
    try:
        served = client.get(path="/rate_limit", conditional=False).served_at
    except NotFound:  # a server with rate limiting switched off
        return None
    return served.date() if served is not None else None
