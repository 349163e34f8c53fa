"""The billing endpoints' wire names in one declaration: their paths under each dialect, and the
name each wire field lands under (docs/billing.md).

``github`` is the public service's naming (camelCase fields under ``/settings/billing``);
``service`` says the same data under the contract's own paths, with every camelCase field name
in snake_case, and its product word (``assistant``) where the public one says ``copilot``. The
service client builds its paths here and the transforms read the answers' fields through
`field`, so a dialect is this module's rows and nothing else.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any, Literal

__all__ = [
    "AI_CREDITS_FROM",
    "BILLING_ROLES",
    "CLOSE_AFTER_DAYS",
    "COLUMNS",
    "ENDPOINTS",
    "ENVELOPE",
    "HISTORY_MONTHS",
    "ITEM_COLUMNS",
    "MONEY",
    "BillingEndpoint",
    "billing_path",
    "canonical_word",
    "field",
    "month_closes",
    "wire_name",
]

Scope = Literal["organization", "enterprise"]
Dialect = Literal["github", "service"]

# The service keeps this many months (the current one included); older ones answer 400.
HISTORY_MONTHS = 24
# A month's amounts are provisional until 00:00 UTC on this day after its last (the 4th of the
# next month): until then a day of it may answer more; after, never again.
CLOSE_AFTER_DAYS = 3
# Who may read a scope's billing, per scope (a 403's hint, and the run's line for a scope refused).
BILLING_ROLES: dict[Scope, str] = {
    "enterprise": "enterprise administrator, billing manager or an app with billing read",
    "organization": "organization administrator (owner), billing manager or an app with billing read",
}
# AI credits replaced premium requests on this day: the months before are the premium meter's.
AI_CREDITS_FROM = date(2026, 6, 1)


@dataclass(frozen=True)
class BillingEndpoint:
    name: str
    github: str  # the path after the scope's prefix, public naming
    service: str  # the same under the service dialect
    scopes: frozenset[Scope]


_BOTH: frozenset[Scope] = frozenset({"organization", "enterprise"})
_ENTERPRISE: frozenset[Scope] = frozenset({"enterprise"})

ENDPOINTS: dict[str, BillingEndpoint] = {
    e.name: e
    for e in (
        BillingEndpoint("ai_credit_usage", "/settings/billing/ai_credit/usage", "/billing/ai-credits/usage", _BOTH),
        BillingEndpoint(
            "premium_request_usage",
            "/settings/billing/premium_request/usage",
            "/billing/premium-requests/usage",
            _BOTH,
        ),
        BillingEndpoint("usage", "/settings/billing/usage", "/billing/usage", _BOTH),
        BillingEndpoint("usage_summary", "/settings/billing/usage/summary", "/billing/usage/summary", _BOTH),
        BillingEndpoint("cost_centers", "/settings/billing/cost-centers", "/billing/cost-centers", _ENTERPRISE),
        BillingEndpoint("budgets", "/settings/billing/budgets", "/billing/budgets", _ENTERPRISE),
        BillingEndpoint(
            "budget_user_states",
            "/settings/billing/budgets/{budget_id}/user-states",
            "/billing/budgets/{budget_id}/user-states",
            _ENTERPRISE,
        ),
        BillingEndpoint("reports", "/settings/billing/reports", "/billing/reports", _ENTERPRISE),
        BillingEndpoint("report", "/settings/billing/reports/{report_id}", "/billing/reports/{report_id}", _ENTERPRISE),
        BillingEndpoint("seat_billing", "/copilot/billing", "/assistant/billing", frozenset({"organization"})),
    )
}

# The scope's path prefix: the public service says `organizations/` on its billing paths but
# `orgs/` on the seat breakdown; the service dialect says `orgs/` everywhere.
_PREFIXES: dict[tuple[Dialect, Scope], str] = {
    ("github", "enterprise"): "/enterprises/",
    ("github", "organization"): "/organizations/",
    ("service", "enterprise"): "/enterprises/",
    ("service", "organization"): "/orgs/",
}


def billing_path(dialect: Dialect, scope: Scope, scope_name: str, endpoint: str, **ids: str) -> str:
    """The path of `endpoint` for one scope under `dialect`, its `{budget_id}`/`{report_id}` filled."""
    declared = ENDPOINTS[endpoint]
    if scope not in declared.scopes:
        raise ValueError(f"billing endpoint {endpoint} is not served for an {scope}")
    prefix = "/orgs/" if endpoint == "seat_billing" else _PREFIXES[(dialect, scope)]
    suffix = declared.github if dialect == "github" else declared.service
    return prefix + scope_name + suffix.format(**ids)


# The public (camelCase) wire name of every field the usage answers carry, and its column: the
# service dialect's wire name is its snake_case (`wire_name`). An item field not here lands in
# the row's `extra` and is told as drift.
ITEM_COLUMNS: dict[str, str] = {
    "date": "day",
    "product": "product",
    "sku": "sku",
    "model": "model",
    "unitType": "unit_type",
    "pricePerUnit": "price_per_unit",
    "quantity": "quantity",
    "grossQuantity": "gross_quantity",
    "grossAmount": "gross_amount",
    "discountQuantity": "discount_quantity",
    "discountAmount": "discount_amount",
    "netQuantity": "net_quantity",
    "netAmount": "net_amount",
    "organizationName": "organization_name",
    "repositoryName": "repository_name",
}
# The envelope of a usage answer: the period it covers, its items, the cost center it was
# filtered by, and the filters it echoes (known, so never drift; not columns).
ENVELOPE = frozenset(
    {"timePeriod", "usageItems", "costCenter", "enterprise", "organization", "user", "model", "product"}
    | {"repository", "sku"}
)
# The amounts and quantities: JSON numbers the client parses as Decimal, landed DECIMAL(18,6).
MONEY = frozenset(
    {"price_per_unit", "quantity", "gross_quantity", "gross_amount", "discount_quantity"}
    | {"discount_amount", "net_quantity", "net_amount"}
)
# Every other billing answer's fields (cost centers, budgets, their user states, the seat
# breakdown): already snake_case in both dialects, landed under these columns.
COLUMNS: dict[str, str] = {
    "costCenters": "cost_centers",
    "id": "id",
    "user": "user_login",
    "ai_credit_pool_state.target_amount": "ai_credit_pool_target_amount",
    "ai_credit_pool_state.current_amount": "ai_credit_pool_current_amount",
}

_CAMEL = re.compile(r"(?<=[a-z0-9])([A-Z])")


def wire_name(dialect: Dialect, public: str) -> str:
    """A field's name on `dialect`'s wire, given its public (camelCase) name."""
    return public if dialect == "github" else _CAMEL.sub(r"_\1", public).lower()


def field(dialect: Dialect, answer: Mapping[str, Any], public: str) -> Any:
    """The value of the field publicly named `public` in a `dialect` answer (None when absent)."""
    return answer.get(wire_name(dialect, public))


# The product word of each dialect in product and SKU values (`copilot_ai_credit`); they land
# under the service's (`assistant_ai_credit`), as the reports' fields do, so a view reads one.
_PRODUCT_WORDS: dict[Dialect, str] = {"github": "copilot", "service": "assistant"}


def canonical_word(dialect: Dialect, value: str) -> str:
    """A product or SKU value under the canonical product word."""
    return value.replace(_PRODUCT_WORDS[dialect], _PRODUCT_WORDS["service"])


def month_closes(month: date) -> date:
    """The day (00:00 UTC) from which the month starting `month` is closed for good."""
    following = (month.replace(day=28) + timedelta(days=4)).replace(day=1)
    return following + timedelta(days=CLOSE_AFTER_DAYS)
