"""Whether the configured credentials can read what the pipeline needs, as data (the CLI words it).

One ``/rate_limit`` call, then one report-metadata call per scope: every failure is kept with
the probe that met it, so a caller can say which scope is wrong and what kind of problem it is.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from pipelines.service._stats import Budget
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

__all__ = ["AccessCheck", "AccessProblem", "ProblemKind", "ScopeAccess", "check_access"]

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
