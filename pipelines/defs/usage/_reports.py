"""Landing a usage run's reports: every scope's reports, a failing scope skipped and named.

What landed is tallied for the assets' metadata; each report's checks ran in its own
transaction and their outcomes are kept for the run's check results.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from datetime import date
from pathlib import Path

import dagster as dg
import duckdb

from pipelines._words import counted
from pipelines.config import ENV_VARS, Settings
from pipelines.ingest.errors import IngestError
from pipelines.ingest.report import IngestResult, ingest_report
from pipelines.service import (
    ConfigError,
    NotFound,
    ReportRef,
    ServiceClient,
    ServiceError,
    canonical_scopes,
    fetch_report_metadata,
)
from pipelines.service.dialect import Kind
from pipelines.transform.finality import FINAL_AFTER_DAYS
from pipelines.warehouse.checks import CheckOutcome, ChecksFailed
from pipelines.warehouse.erasure import load_forgotten


def report_refs(
    settings: Settings, *, kind: Kind, days: Iterable[date | None], client: ServiceClient
) -> list[ReportRef]:
    """Every report of `kind` for each of `days` and the configured scopes, aggregate and user
    level; each scope named as the service spells it (one organization, one name)."""
    if not settings.scopes:
        raise ConfigError(f"no report scope: set {ENV_VARS['orgs']}, {ENV_VARS['enterprises']} or both")
    scopes = canonical_scopes(client, settings.scopes)
    return [
        ReportRef(scope=scope, scope_name=name, kind=kind, level=level, day=day)
        for day in days
        for scope, name in scopes
        for level in ("aggregate", "user")
    ]


@dataclass
class Tally:
    rows: Counter[str] = field(default_factory=Counter)
    files: int = 0
    bytes: int = 0
    quarantined: int = 0
    repeated: int = 0  # lines that repeated an earlier line of their key, landed once
    restarts: int = 0
    days: set[date] = field(default_factory=set)
    agents: set[str] = field(default_factory=set)
    not_available: list[ReportRef] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    checks: list[CheckOutcome] = field(default_factory=list)
    drift: dict[str, tuple[str, int]] = field(default_factory=dict)  # path -> (drift, records)

    def add(self, ref: ReportRef, result: IngestResult) -> None:
        if not result.available:
            self.not_available.append(ref)
            return
        self.rows.update(result.rows)
        self.files += result.files
        self.bytes += result.bytes
        self.quarantined += result.quarantined
        self.repeated += result.repeated
        self.restarts += result.restarts
        self.days.update(result.days)
        self.agents.update(result.agents)
        self.checks.extend(result.checks)
        for path, (drift, records) in result.drift.items():
            self.drift[path] = (drift, self.drift.get(path, (drift, 0))[1] + records)


def unavailable_lines(refs: Iterable[ReportRef], *, today: date) -> list[str]:
    """One line per scope naming the days (and levels) the platform had no report for.

    A recent day is "not available yet"; a day old enough to be final has no report at all:
    before the platform's history for that scope, or its metrics policy was off then.
    """
    by_scope: dict[tuple[str, str], dict[date | None, set[str]]] = {}
    for ref in refs:
        by_scope.setdefault((ref.scope, ref.scope_name), {}).setdefault(ref.day, set()).add(ref.level)
    lines = []
    for (scope, name), days in by_scope.items():
        recent: list[str] = []
        missing: list[str] = []
        for day, levels in sorted(days.items(), key=lambda item: item[0] or date.max):
            text = "latest 28-day" if day is None else day.isoformat()
            if levels != {"aggregate", "user"}:
                text += f" ({' and '.join(sorted(levels))} level)"
            # Old enough to be final: a report still missing then never comes.
            old = day is not None and (today - day).days > FINAL_AFTER_DAYS
            (missing if old else recent).append(text)
        if recent:
            lines.append(f"{scope} {name}: not available yet: {', '.join(recent)}")
        if missing:
            lines.append(
                f"{scope} {name}: no report exists for {', '.join(missing)} (before the platform's history "
                "for this scope, or its metrics policy was off then)"
            )
    return lines


_SCOPE_VARIABLE = {"organization": ENV_VARS["orgs"], "enterprise": ENV_VARS["enterprises"]}


class ScopesFailed(IngestError):
    """Some configured scopes could not be landed; every other scope's reports did land."""


def _confirm_scope(client: ServiceClient, ref: ReportRef) -> None:
    """A scope whose every daily report answered 204/404 may not exist at all.

    A 1-day 404 cannot tell "no report for that day" from "no such scope"; the 28-day
    ``latest`` report can: it answers 404 only for a scope the service (or token) doesn't know.
    """
    try:
        fetch_report_metadata(client, replace(ref, kind="28-day", level="aggregate", day=None))
    except NotFound as exc:
        raise ConfigError(
            f"{_SCOPE_VARIABLE[ref.scope]} names {ref.scope_name!r}, but the service knows no {ref.scope} of that "
            f"name (or the token cannot see it): {exc.message}"
        ) from None


def ingest_all(
    context: dg.AssetExecutionContext,
    *,
    client: ServiceClient,
    conn: duckdb.DuckDBPyConnection,
    raw_dir: Path,
    refs: Iterable[ReportRef],
    pseudonym_key: str | None = None,
) -> Tally:
    """Land every report; a scope that fails is skipped and named, the other scopes still land.

    People erased by `metrics-etl forget` are dropped from every report (`pseudonym_key` tests them).
    """
    tally = Tally()
    forgotten = load_forgotten(conn, pseudonym_key)
    by_scope: dict[tuple[str, str], list[ReportRef]] = {}
    for ref in refs:
        by_scope.setdefault((ref.scope, ref.scope_name), []).append(ref)
    failures: list[str] = []
    for (scope, name), scope_refs in by_scope.items():
        try:
            landed = 0
            for ref in scope_refs:
                result = ingest_report(client=client, ref=ref, conn=conn, raw_dir=raw_dir, forgotten=forgotten)
                tally.add(ref, result)
                landed += result.available
                landed_text = f"{counted(result.files, 'file')}, {counted(result.bytes, 'byte')}"
                context.log.info(
                    "%s %s %s %s: %s",
                    ref.scope,
                    ref.scope_name,
                    ref.level,
                    ref.day or "latest",
                    landed_text if result.available else "not available yet",
                )
            if not landed:
                _confirm_scope(client, scope_refs[0])
        except (ServiceError, IngestError, ChecksFailed) as exc:
            if isinstance(exc, ChecksFailed):
                tally.checks.extend(exc.outcomes)
            context.log.error("%s %s failed: %s", scope, name, exc)
            tally.not_available = [r for r in tally.not_available if (r.scope, r.scope_name) != (scope, name)]
            failures.append(f"{scope} {name}: {exc}")
    tally.failures = failures
    return tally


def raise_failures(tally: Tally) -> None:
    if tally.failures:
        more = len(tally.failures) - 1
        others = f" (and {counted(more, 'more scope')}; every other scope landed)" if more else ""
        raise ScopesFailed(f"{tally.failures[0]}{others}")
