"""`metrics-etl check` and `metrics-etl login`: one line per problem, never a traceback."""

from __future__ import annotations

import dataclasses
import webbrowser
from collections.abc import Callable
from datetime import UTC, datetime
from typing import TextIO

from pipelines.config import Settings
from pipelines.service.auth import oauth_login
from pipelines.service.client import ServiceClient
from pipelines.service.errors import (
    AuthenticationFailed,
    ConfigError,
    NotFound,
    PermissionDenied,
    RateLimited,
    ServiceError,
    VersionRejected,
)
from pipelines.service.reports import ReportRef, fetch_report_metadata


def run_check(*, settings: Settings, out: TextIO) -> int:
    """One ``/rate_limit`` call and one report-metadata call per configured scope; exit 0 or 1."""
    problems: list[str] = []
    if settings.token is None and not settings.uses_app:
        problems.append(
            "no credentials: set SERVICE_TOKEN, run `metrics-etl login`, or set SERVICE_APP_ID, "
            "SERVICE_APP_PRIVATE_KEY(_PATH) and SERVICE_INSTALLATION_ID"
        )
    refs = [ReportRef(scope=scope, scope_name=name, kind="28-day", level="aggregate") for scope, name in settings.scopes]
    if not refs:
        problems.append("no report scope: set SERVICE_ORG or SERVICE_ENTERPRISE (comma lists for several)")
    # A check must answer now: never wait for a rate-limit reset, never touch the ETag cache.
    quick = dataclasses.replace(settings, rate_limit_max_wait=0.0, etag_cache=None)
    try:
        client = ServiceClient(settings=quick)
    except ConfigError as exc:
        return _report(out, [*problems, f"configuration: {exc}"])
    with client:
        readable: list[str] = []
        failed: dict[str, str] = {}
        try:
            client.rate_limit()
        except ServiceError as exc:
            failed.setdefault(*_describe(exc, ref=None))
        for ref in refs:
            try:
                metadata = fetch_report_metadata(client, ref)
            except ServiceError as exc:
                # Every call fails alike on bad credentials: one line per problem, not per call.
                failed.setdefault(*_describe(exc, ref=ref))
                continue
            scope = f"{ref.scope} {ref.scope_name!r}"
            if metadata is None:
                readable.append(f"{scope} readable (no 28-day report yet)")
            else:
                readable.append(f"{scope} 28-day report readable ({metadata.start_day}..{metadata.end_day})")
        problems += [f"{label}: {text}" for label, text in failed.items()]
        if problems:
            return _report(out, problems)
        print(f"OK: {client.base_url}: {'; '.join(readable)}; {_budget_text(client)}", file=out)
    return 0


def run_login(*, settings: Settings, out: TextIO, open_browser: Callable[[str], object] | None = None) -> int:
    """The OAuth authorization-code flow; stores the token (0600) at SERVICE_TOKEN_FILE."""
    missing = [
        name
        for name, value in (
            ("SERVICE_OAUTH_URL (or SERVICE_BASE_URL)", settings.oauth_url),
            ("SERVICE_CLIENT_ID", settings.client_id),
            ("SERVICE_CLIENT_SECRET", settings.client_secret),
        )
        if not value
    ]
    if missing:
        return _report(out, [f"login needs {name}" for name in missing])
    assert settings.oauth_url and settings.client_id and settings.client_secret

    def show(url: str) -> object:
        print(f"Open this address to authorize metrics-etl:\n  {url}", file=out, flush=True)
        return (open_browser or webbrowser.open)(url)

    try:
        path = oauth_login(
            oauth_url=settings.oauth_url,
            client_id=settings.client_id,
            client_secret=settings.client_secret,
            token_file=settings.token_file,
            open_browser=show,
        )
    except ServiceError as exc:
        return _report(out, [f"login failed: {exc}"])
    except OSError as exc:
        return _report(out, [f"login failed: cannot store the token at {settings.token_file}: {exc.strerror}"])
    print(f"OK: token stored in {path} (owner-only permissions)", file=out)
    return 0


def _describe(exc: ServiceError, *, ref: ReportRef | None) -> tuple[str, str]:
    """(what kind of problem, the error's own words)."""
    if isinstance(exc, AuthenticationFailed):
        return "bad credentials", str(exc)
    if isinstance(exc, PermissionDenied):
        return ("policy off" if "policy" in exc.hint.lower() else "missing permission"), str(exc)
    if isinstance(exc, NotFound) and ref is not None:
        variable = "SERVICE_ORG" if ref.scope == "organization" else "SERVICE_ENTERPRISE"
        return f"unknown {ref.scope} {ref.scope_name!r} in {variable}", str(exc)
    if isinstance(exc, VersionRejected):
        return "version rejected", str(exc)
    if isinstance(exc, RateLimited):
        return "rate limit spent", str(exc)
    return "service error", str(exc)


def _budget_text(client: ServiceClient) -> str:
    budget = client.budgets.get("core")
    if budget is None or budget.remaining is None:
        return "rate limit budget unknown"
    reset = (
        datetime.fromtimestamp(budget.reset, tz=UTC).isoformat(timespec="seconds") if budget.reset else "unknown"
    )
    return f"rate limit {budget.remaining}/{budget.limit} remaining, resets {reset}"


def _report(out: TextIO, problems: list[str]) -> int:
    for line in problems:
        print(line, file=out)
    return 1
