"""Usage reports: each day's 1-day reports, and the latest 28-day report, landed in core.*."""

from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace
from datetime import date, datetime, timedelta, timezone

import dagster as dg
import duckdb
from dagster_duckdb import DuckDBResource

from pipelines.config import Settings
from pipelines.defs.checks import USAGE_RUN_CHECKS, evaluate, report_check_results, report_check_specs, specs
from pipelines.defs.resources import ServiceResource, StorageResource
from pipelines.ingest.report import IngestResult, ingest_report
from pipelines.ingest.errors import IngestError
from pipelines.service import ConfigError, NotFound, ReportRef, ServiceClient, ServiceError, fetch_report_metadata
from pipelines.warehouse import migrate
from pipelines.warehouse.sql import run_sql
from pipelines.warehouse.checks import CheckOutcome, ChecksFailed

GROUP = "usage"
POOL = "service_api"

# Written together, in one transaction per report: agent_days, dim_agent and agent_names are
# refreshed with the facts so the latest label can never lag behind them.
USAGE_TABLES: tuple[tuple[str, str], ...] = (
    ("raw", "report_files"),
    ("core", "daily_totals"),
    ("core", "user_daily_totals"),
    ("core", "breakdowns"),
    ("core", "agent_activity"),
    ("core", "agent_days"),
    ("core", "dim_agent"),
    ("core", "agent_names"),
)
_DESCRIPTIONS = {
    "report_files": "One row per downloaded report file (archived compressed, with sha256).",
    "daily_totals": "Aggregate-level report records: one row per scope and day.",
    "user_daily_totals": "User-level report records: one row per scope, day and user.",
    "breakdowns": "The breakdown arrays (IDE, feature, language, model, CLI) in long form.",
    "agent_activity": "Third-party agent entries by agent_id: job starts and (aggregate only) sessions.",
    "agent_days": "Which agent labels were seen on which day, per scope and level (a few rows a day).",
    "dim_agent": "One row per agent_id with its latest label.",
    "agent_names": "Every label an agent_id has carried, with the days it was seen.",
}


def report_refs(settings: Settings, *, kind: str, day: date | None) -> list[ReportRef]:
    """Every report of `kind` for the configured scopes, aggregate and user level."""
    refs = [
        ReportRef(scope=scope, scope_name=name, kind=kind, level=level, day=day)
        for scope, name in settings.scopes
        for level in ("aggregate", "user")
    ]
    if not refs:
        raise ConfigError("no report scope: set SERVICE_ORG, SERVICE_ENTERPRISE or both")
    return refs


@dataclass
class _Tally:
    rows: Counter = field(default_factory=Counter)
    files: int = 0
    bytes: int = 0
    quarantined: int = 0
    restarts: int = 0
    days: set[date] = field(default_factory=set)
    agents: set[str] = field(default_factory=set)
    not_available: list[ReportRef] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    checks: list[CheckOutcome] = field(default_factory=list)

    def add(self, ref: ReportRef, result: IngestResult) -> None:
        if not result.available:
            self.not_available.append(ref)
            return
        self.rows.update(result.rows)
        self.files += result.files
        self.bytes += result.bytes
        self.quarantined += result.quarantined
        self.restarts += result.restarts
        self.days.update(result.days)
        self.agents.update(result.agents)
        self.checks.extend(result.checks)


# A day's report is final three full UTC days after it ends; one still missing then never comes.
_FINAL_AFTER_DAYS = 3


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
        recent, missing = [], []
        for day, levels in sorted(days.items(), key=lambda item: item[0] or date.max):
            text = "latest 28-day" if day is None else day.isoformat()
            if levels != {"aggregate", "user"}:
                text += f" ({' and '.join(sorted(levels))} level)"
            old = day is not None and (today - day).days > _FINAL_AFTER_DAYS
            (missing if old else recent).append(text)
        if recent:
            lines.append(f"{scope} {name}: not available yet: {', '.join(recent)}")
        if missing:
            lines.append(
                f"{scope} {name}: no report exists for {', '.join(missing)} (before the platform's history "
                "for this scope, or its metrics policy was off then)"
            )
    return lines


_SCOPE_VARIABLE = {"organization": "SERVICE_ORG", "enterprise": "SERVICE_ENTERPRISE"}


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


def _ingest_all(
    context: dg.AssetExecutionContext,
    *,
    client: ServiceClient,
    conn: duckdb.DuckDBPyConnection,
    storage: StorageResource,
    refs: Iterable[ReportRef],
) -> _Tally:
    """Land every report; a scope that fails is skipped and named, the other scopes still land."""
    tally = _Tally()
    by_scope: dict[tuple[str, str], list[ReportRef]] = {}
    for ref in refs:
        by_scope.setdefault((ref.scope, ref.scope_name), []).append(ref)
    failures: list[str] = []
    for (scope, name), scope_refs in by_scope.items():
        try:
            landed = 0
            for ref in scope_refs:
                result = ingest_report(client=client, ref=ref, conn=conn, raw_dir=storage.raw_path)
                tally.add(ref, result)
                landed += result.available
                context.log.info(
                    "%s %s %s %s: %s", ref.scope, ref.scope_name, ref.level, ref.day or "latest",
                    f"{result.files} files, {result.bytes:,} bytes" if result.available else "not available yet",
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


def _client_metadata(client: ServiceClient, remaining_before: int | None) -> dict[str, object]:
    stats = client.stats
    budget = client.budgets.get("core")
    return {
        "requests": dg.MetadataValue.int(stats.requests),
        "not_modified_share": dg.MetadataValue.float(
            round(stats.not_modified / stats.requests, 4) if stats.requests else 0.0
        ),
        "retries": dg.MetadataValue.int(sum(stats.retries.values())),
        "rate_limit_remaining_before": remaining_before,
        "rate_limit_remaining": budget.remaining if budget else None,
    }


def _newest_day_preview(conn: duckdb.DuckDBPyConnection) -> dg.MetadataValue:
    rows = run_sql(conn, "metadata/select_newest_agent_day.sql")
    if not rows:
        return dg.MetadataValue.md("_no agent activity landed yet_")
    lines = ["| day | agent_id | agent | job starts | sessions |", "|---|---|---|---:|---:|"]
    lines += [f"| {d} | {aid} | {name} | {starts} | {'' if s is None else s} |" for d, aid, name, starts, s in rows]
    return dg.MetadataValue.md("\n".join(lines))


def _materializations(
    conn: duckdb.DuckDBPyConnection, tally: _Tally, service_metadata: dict[str, object]
) -> Iterator[dg.MaterializeResult]:
    table_rows = {name: count for name, count in run_sql(conn, "metadata/count_usage_rows.sql")}
    days = sorted(tally.days)
    common = {
        "days_covered": dg.MetadataValue.int(len(days)),
        "first_day": days[0].isoformat() if days else None,
        "last_day": days[-1].isoformat() if days else None,
        "not_available": dg.MetadataValue.json(
            unavailable_lines(tally.not_available, today=datetime.now(timezone.utc).date())
        ),
    }
    for schema, table in USAGE_TABLES:
        qualified = f"{schema}.{table}"
        metadata: dict[str, object] = {
            **common,
            "dagster/row_count": dg.MetadataValue.int(table_rows.get(qualified, 0)),
            "rows_landed": dg.MetadataValue.int(tally.rows.get(qualified, 0)),
        }
        if table == "report_files":
            metadata |= {
                "files": tally.files,
                "bytes": dg.MetadataValue.int(tally.bytes),
                "quarantined_lines": dg.MetadataValue.int(tally.quarantined),
                "file_restarts": dg.MetadataValue.int(tally.restarts),
                **service_metadata,
            }
        if table in ("agent_activity", "dim_agent"):
            metadata |= {"agents_seen": dg.MetadataValue.int(len(tally.agents)), "agent_ids": ", ".join(sorted(tally.agents))}
        if table == "daily_totals":
            metadata["newest_day"] = _newest_day_preview(conn)
        yield dg.MaterializeResult(asset_key=dg.AssetKey([schema, table]), metadata=metadata)


def _run(
    context: dg.AssetExecutionContext,
    *,
    service: ServiceResource,
    warehouse: DuckDBResource,
    storage: StorageResource,
    kind: str,
    days: list[date],
) -> Iterator[dg.MaterializeResult | dg.AssetCheckResult]:
    settings = service.settings()
    refs = [ref for day in days for ref in report_refs(settings, kind=kind, day=day)]
    started = datetime.now(timezone.utc)
    with service.client() as client, warehouse.get_connection() as conn:
        # Every table exists before anything reads it, even on a first run that lands nothing.
        migrate(conn)
        before = client.rate_limit()["resources"]["core"]["remaining"]
        tally = _ingest_all(context, client=client, conn=conn, storage=storage, refs=refs)
        service_metadata = _client_metadata(client, before)
        yield from _materializations(conn, tally, service_metadata)
        yield from report_check_results(tally.checks)
        available_day = date.today() - timedelta(days=1)
        yield from evaluate(
            conn, USAGE_RUN_CHECKS, since=started, start_day=min(days), end_day=max(days),
            available_day=available_day.isoformat(),
        )
    _raise_failures(tally)


def _raise_failures(tally: _Tally) -> None:
    if tally.failures:
        others = f" (and {len(tally.failures) - 1} more scopes; every other scope landed)" if len(tally.failures) > 1 else ""
        raise ScopesFailed(f"{tally.failures[0]}{others}")


def _specs(*, deps: Iterable[dg.AssetKey] = ()) -> list[dg.AssetSpec]:
    return [
        dg.AssetSpec(
            [schema, table], group_name=GROUP, description=_DESCRIPTIONS[table], kinds={"duckdb"},
            deps=list(deps),
        )
        for schema, table in USAGE_TABLES
    ]


def build_usage_assets(partitions_def: dg.PartitionsDefinition) -> list[dg.AssetsDefinition]:
    @dg.multi_asset(
        name="usage_reports_daily",
        specs=_specs(),
        check_specs=report_check_specs() + specs(USAGE_RUN_CHECKS),
        partitions_def=partitions_def,
        backfill_policy=dg.BackfillPolicy.single_run(),
        pool=POOL,
        can_subset=False,
    )
    def usage_reports_daily(
        context: dg.AssetExecutionContext,
        service: ServiceResource,
        warehouse: DuckDBResource,
        storage: StorageResource,
    ) -> Iterator[dg.MaterializeResult | dg.AssetCheckResult]:
        """The 1-day reports of each day in the run's partitions, every scope and level."""
        days = [date.fromisoformat(key) for key in context.partition_keys]
        yield from _run(context, service=service, warehouse=warehouse, storage=storage, kind="1-day", days=days)

    @dg.asset(
        key=["usage", "latest_28_day_report"],
        group_name=GROUP,
        pool=POOL,
        kinds={"duckdb"},
        deps=[dg.AssetKey(["core", "daily_totals"])],
    )
    def latest_28_day_report(
        context: dg.AssetExecutionContext,
        service: ServiceResource,
        warehouse: DuckDBResource,
        storage: StorageResource,
    ) -> dg.MaterializeResult:
        """The newest 28-day reports, landed into the same core tables; its date range is its key."""
        settings = service.settings()
        with service.client() as client, warehouse.get_connection() as conn:
            migrate(conn)
            tally = _ingest_all(
                context, client=client, conn=conn, storage=storage,
                refs=report_refs(settings, kind="28-day", day=None),
            )
            metadata = _client_metadata(client, None)
        _raise_failures(tally)
        days = sorted(tally.days)
        report_range = f"{days[0]}..{days[-1]}" if days else "none"
        return dg.MaterializeResult(
            metadata={
                "report_range": report_range,
                "days_covered": dg.MetadataValue.int(len(days)),
                "files": tally.files,
                "bytes": dg.MetadataValue.int(tally.bytes),
                "quarantined_lines": dg.MetadataValue.int(tally.quarantined),
                "agents_seen": dg.MetadataValue.int(len(tally.agents)),
                "not_available": dg.MetadataValue.json(
                    unavailable_lines(tally.not_available, today=datetime.now(timezone.utc).date())
                ),
                **metadata,
            },
            data_version=dg.DataVersion(report_range),
        )

    return [usage_reports_daily, latest_28_day_report]
