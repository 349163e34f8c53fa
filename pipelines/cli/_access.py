"""`metrics-etl check` and `metrics-etl login`: credentials against the service."""

from __future__ import annotations

import dataclasses
import webbrowser
from datetime import UTC, datetime
from typing import TYPE_CHECKING

import click

from pipelines.cli._base import Failed, load_settings
from pipelines.cli._vendors import vendor_lines
from pipelines.service import (
    AccessProblem,
    Budget,
    ConfigError,
    RequestFailed,
    ServiceClient,
    ServiceError,
    check_access,
    oauth_login,
)
from pipelines.service.access import BillingAccess, check_billing_access

if TYPE_CHECKING:
    from pipelines.config import Settings


@click.command()
def check() -> int:
    """Verify credentials, permissions and policy against the service.

    Prints a line per vendor first: what its key reads, why not and what to do, or skipped when
    its key is unset (never a failure). Then the service's verdict: one line per problem (exit 1),
    or one OK line naming what is readable (the reports, and the billing data of each scope) and
    the rate-limit budget, then one line per scope naming the billing data the token cannot read
    and the roles it needs (the run lands everything else: still exit 0).
    """
    settings = load_settings()
    # The vendors first: the service's verdict, which decides the exit code, is the last word.
    for line in vendor_lines(settings):
        click.echo(line)
    problems, client = _configured(settings)
    billing: tuple[BillingAccess, ...] = ()
    if client is not None:
        with client:
            result = check_access(client, settings.scopes)
            if settings.billing_months:  # BILLING_MONTHS=0: billing is off, nothing to ask
                billing = check_billing_access(client, [(a.scope, a.scope_name) for a in result.readable])
        # Every call fails alike on bad credentials: one line per problem, not per call.
        failed: dict[str, str] = {}
        for problem in result.problems:
            failed.setdefault(_problem_label(problem), str(problem.error))
        problems += [f"{label}: {text}" for label, text in failed.items()]
    for line in problems:
        click.echo(line)
    if problems or client is None:
        return 1
    readable = "; ".join(
        f"{a.scope} {a.scope_name!r} readable (no 28-day report yet)"
        if a.report is None
        else f"{a.scope} {a.scope_name!r} 28-day report readable ({a.report.start_day}..{a.report.end_day})"
        for a in result.readable
    )
    click.echo(f"OK: {client.base_url}: {readable}; {_budget_text(result.budget)}{_billing_readable(billing)}")
    for line in _billing_missing(billing):
        click.echo(line)
    return 0


def _billing_readable(found: tuple[BillingAccess, ...]) -> str:
    """The OK line's clause naming, per scope, the billing data the token can read."""
    scopes: dict[tuple[str, str], list[str]] = {}
    for access in found:
        if access.error is None:
            scopes.setdefault((access.scope, access.scope_name), []).append(access.probe.what)
    if not scopes:
        return ""
    return "; billing readable: " + ", ".join(
        f"{scope} {name!r} {' and '.join(whats)}" for (scope, name), whats in scopes.items()
    )


def _billing_missing(found: tuple[BillingAccess, ...]) -> list[str]:
    """One line per scope and refusal: what billing data it cannot read, the answer, and who can.

    The run still lands everything else of the scope: these lines never fail the check."""
    refused: dict[tuple[str, str, str], dict[str, list[str]]] = {}
    for access in found:
        if access.error is not None:
            key = (access.scope, access.scope_name, _refusal(access.error))
            refused.setdefault(key, {}).setdefault(access.probe.roles, []).append(access.probe.what)
    lines = []
    for (scope, name, why), by_roles in refused.items():
        whats = [what for listed in by_roles.values() for what in listed]
        needs = (
            next(iter(by_roles))
            if len(by_roles) == 1
            else ", ".join(f"{roles} for {' and '.join(listed)}" for roles, listed in by_roles.items())
        )
        lines.append(
            f"billing of {scope} {name!r}: {' and '.join(whats)} not readable ({why}): the token needs {needs}; "
            "the cost views stay without it"
        )
    return lines


def _refusal(error: ServiceError) -> str:
    if isinstance(error, RequestFailed):
        return f"{error.status} {error.message}"
    return str(error)


def configuration_problems(settings: Settings) -> list[str]:
    """Every setting that keeps a run from reaching the service, one line each (none: all set).

    What `check` finds before it asks the service anything; `run` refuses to start on any of them.
    """
    problems, client = _configured(settings)
    if client is not None:
        client.close()
    return problems


def _configured(settings: Settings) -> tuple[list[str], ServiceClient | None]:
    """The configuration's problems, and a client for checking when the service can be reached."""
    problems: list[str] = []
    if settings.token is None and not settings.uses_app:
        problems.append(
            "no credentials: set SERVICE_TOKEN, run `metrics-etl login`, or set SERVICE_APP_ID, "
            "SERVICE_APP_PRIVATE_KEY(_PATH) and SERVICE_INSTALLATION_ID"
        )
    if not settings.scopes:
        problems.append("no report scope: set SERVICE_ORG or SERVICE_ENTERPRISE (comma lists for several)")
    try:
        # A check must answer now: never wait for a rate-limit reset, never touch the ETag cache.
        config = dataclasses.replace(settings.service_config(), rate_limit_max_wait=0.0, etag_cache=None)
        client = ServiceClient(config=config)
    except ConfigError as exc:
        problems.append(f"configuration: {exc}")
        return problems, None
    return problems, client


def _problem_label(problem: AccessProblem) -> str:
    if problem.kind == "unknown_scope" and problem.scope is not None:
        scope, name = problem.scope
        variable = "SERVICE_ORG" if scope == "organization" else "SERVICE_ENTERPRISE"
        return f"unknown {scope} {name!r} in {variable}"
    return problem.kind.replace("_", " ")


def _budget_text(budget: Budget | None) -> str:
    if budget is None or budget.remaining is None:
        return "rate limit budget unknown"
    reset = datetime.fromtimestamp(budget.reset, tz=UTC).isoformat(timespec="seconds") if budget.reset else "unknown"
    return f"rate limit {budget.remaining}/{budget.limit} remaining, resets {reset}"


@click.command()
def login() -> None:
    """OAuth login on a loopback redirect; stores the token owner-only at SERVICE_TOKEN_FILE."""
    settings = load_settings()
    required = (
        ("SERVICE_OAUTH_URL (or SERVICE_BASE_URL)", settings.oauth_url),
        ("SERVICE_CLIENT_ID", settings.client_id),
        ("SERVICE_CLIENT_SECRET", settings.client_secret),
    )
    if missing := [name for name, value in required if not value]:
        raise Failed("login needs " + ", ".join(missing))
    assert settings.oauth_url and settings.client_id and settings.client_secret

    def show(url: str) -> object:
        click.echo(f"Open this address to authorize metrics-etl:\n  {url}")
        return webbrowser.open(url)

    try:
        path = oauth_login(
            oauth_url=settings.oauth_url,
            client_id=settings.client_id,
            client_secret=settings.client_secret,
            token_file=settings.token_file,
            open_browser=show,
        )
    except ServiceError as exc:
        raise Failed(f"login failed: {exc}") from None
    except OSError as exc:
        raise Failed(f"login failed: cannot store the token at {settings.token_file}: {exc.strerror}") from None
    click.echo(f"OK: token stored in {path} (owner-only permissions)")
