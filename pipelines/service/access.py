"""Whether the configured credentials can read what the pipeline needs, as data (the CLI words it).

One ``/rate_limit`` call, then one report-metadata call per scope: every failure is kept with
the probe that met it, so a caller can say which scope is wrong and what kind of problem it is.
Then, per scope, one call for each kind of billing data (``BILLING_PROBES``): which the token can
read, and for each it cannot, the answer and the roles it needs.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Literal

from pipelines.service._stats import Budget
from pipelines.service.billing_wire import Dialect as BillingDialect
from pipelines.service.billing_wire import billing_path
from pipelines.service.client import ServiceClient
from pipelines.service.dialect import Scope
from pipelines.service.errors import (
    AuthenticationFailed,
    NotFound,
    PermissionDenied,
    RateLimited,
    ServiceError,
    VersionRejected,
)
from pipelines.service.reports import ReportMetadata, ReportRef, fetch_report_metadata

__all__ = [
    "BILLING_PROBES",
    "AccessCheck",
    "AccessProblem",
    "BillingAccess",
    "BillingProbe",
    "ProblemKind",
    "ScopeAccess",
    "check_access",
    "check_billing_access",
]

ProblemKind = Literal[
    "bad_credentials",
    "missing_permission",
    "policy_off",
    "unknown_scope",
    "version_rejected",
    "rate_limit_spent",
    "service_error",
]


@dataclass(frozen=True)
class ScopeAccess:
    """A scope whose 28-day report metadata could be read; ``report`` None: none published yet."""

    scope: Scope
    scope_name: str
    report: ReportMetadata | None


@dataclass(frozen=True)
class AccessProblem:
    """One failed probe: ``scope`` None is the ``/rate_limit`` call."""

    kind: ProblemKind
    error: ServiceError
    scope: tuple[Scope, str] | None = None


@dataclass(frozen=True)
class AccessCheck:
    readable: tuple[ScopeAccess, ...]
    problems: tuple[AccessProblem, ...]
    budget: Budget | None  # the core budget after the probes, when the service reported one


def check_access(client: ServiceClient, scopes: Sequence[tuple[Scope, str]]) -> AccessCheck:
    """Probe ``/rate_limit`` and each scope's latest 28-day aggregate report; never raises ServiceError."""
    readable: list[ScopeAccess] = []
    problems: list[AccessProblem] = []
    try:
        client.rate_limit()
    except ServiceError as exc:
        problems.append(AccessProblem(kind=_kind(exc, probed_scope=False), error=exc))
    for scope, name in scopes:
        ref = ReportRef(scope=scope, scope_name=name, kind="28-day", level="aggregate")
        try:
            metadata = fetch_report_metadata(client, ref)
        except ServiceError as exc:
            problems.append(AccessProblem(kind=_kind(exc, probed_scope=True), error=exc, scope=(scope, name)))
            continue
        readable.append(ScopeAccess(scope=scope, scope_name=name, report=metadata))
    return AccessCheck(readable=tuple(readable), problems=tuple(problems), budget=client.budgets.get("core"))


def _kind(exc: ServiceError, *, probed_scope: bool) -> ProblemKind:
    if isinstance(exc, AuthenticationFailed):
        return "bad_credentials"
    if isinstance(exc, PermissionDenied):
        return "policy_off" if "policy" in exc.hint.lower() else "missing_permission"
    if isinstance(exc, NotFound) and probed_scope:
        return "unknown_scope"
    if isinstance(exc, VersionRejected):
        return "version_rejected"
    if isinstance(exc, RateLimited):
        return "rate_limit_spent"
    return "service_error"


@dataclass(frozen=True)
class BillingProbe:
    """One kind of billing data: the endpoint read to learn whether the token can, and who can."""

    what: str  # as `check` names it
    endpoint: str  # its name in pipelines/service/billing_wire.py
    scope: Scope
    roles: str  # who may read it, as the service documents it


_ENTERPRISE_ROLES = (
    "an enterprise administrator or billing manager, a custom enterprise role with billing read, "
    "or an app installed on the enterprise with billing read"
)
BILLING_PROBES: tuple[BillingProbe, ...] = (
    BillingProbe("usage", "ai_credit_usage", "enterprise", _ENTERPRISE_ROLES),
    BillingProbe("cost centers", "cost_centers", "enterprise", _ENTERPRISE_ROLES),
    BillingProbe("budgets", "budgets", "enterprise", _ENTERPRISE_ROLES),
    BillingProbe("exports", "reports", "enterprise", _ENTERPRISE_ROLES),
    BillingProbe("usage", "ai_credit_usage", "organization", "an organization administrator"),
    BillingProbe(
        "seat breakdown",
        "seat_billing",
        "organization",
        "an organization owner (a classic token needs manage_billing:copilot or read:org)",
    ),
)


@dataclass(frozen=True)
class BillingAccess:
    """Whether one kind of billing data of a scope could be read; `error` None: it could."""

    scope: Scope
    scope_name: str
    probe: BillingProbe
    error: ServiceError | None


def check_billing_access(
    client: ServiceClient, scopes: Sequence[tuple[Scope, str]], *, now: datetime | None = None
) -> tuple[BillingAccess, ...]:
    """One GET per scope and kind of billing data (the usage of this month, the first page of
    each listing); never raises ServiceError."""
    today = (now or datetime.now(UTC)).date()
    dialect: BillingDialect = "github" if client.dialect.name == "github" else "service"
    found: list[BillingAccess] = []
    for scope, name in scopes:
        for probe in BILLING_PROBES:
            if probe.scope != scope:
                continue
            params: Mapping[str, Any] = (
                {"year": today.year, "month": today.month} if probe.endpoint == "ai_credit_usage" else {}
            )
            try:
                client.get(path=billing_path(dialect, scope, name, probe.endpoint), params=params, conditional=False)
            except ServiceError as exc:
                found.append(BillingAccess(scope, name, probe, exc))
                continue
            found.append(BillingAccess(scope, name, probe, None))
    return tuple(found)
