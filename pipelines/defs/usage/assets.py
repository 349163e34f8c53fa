"""Usage reports: each day's 1-day reports, and the latest 28-day report, landed in core.*."""

from collections.abc import Iterator
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

import dagster as dg
import duckdb

from pipelines._clock import utc_today
from pipelines.defs._checks import check_results, check_specs
from pipelines.defs._tables import table_key, table_specs
from pipelines.defs.resources import ServiceResource, StorageResource, WarehouseResource
from pipelines.defs.usage._reports import Tally, ingest_all, raise_failures, report_refs, unavailable_lines
from pipelines.defs.usage.checks import RUN_CHECKS
from pipelines.service import ServiceClient
from pipelines.service.dialect import Kind
from pipelines.warehouse import run_sql
from pipelines.warehouse.catalog import Table, tables
from pipelines.warehouse.checks import REPORT_CHECKS, run_checks

_SQL = Path(__file__).parent / "sql"
GROUP = "usage"
POOL = "service_api"

# The usage assets: the catalog's tables of this concern (pipelines/warehouse/catalog.py), written
# together in one transaction per report (agent_days, dim_agent and agent_names are refreshed with
# the facts so the latest label can never lag behind them).
USAGE_TABLES: tuple[Table, ...] = tuple(tables(asset=GROUP))
# Not a table: it lands the 28-day reports into USAGE_TABLES, so the publish is downstream of it too.
LATEST_28_DAY_REPORT = dg.AssetKey(["usage", "latest_28_day_report"])


def _client_metadata(client: ServiceClient, remaining_before: int | None) -> dict[str, Any]:
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
    rows = run_sql(conn, _SQL / "select_newest_agent_day.sql")
    if not rows:
        return dg.MetadataValue.md("_no agent activity landed yet_")
    lines = ["| day | agent_id | agent | job starts | sessions |", "|---|---|---|---:|---:|"]
    lines += [f"| {d} | {aid} | {name} | {starts} | {'' if s is None else s} |" for d, aid, name, starts, s in rows]
    return dg.MetadataValue.md("\n".join(lines))


def _row_count(conn: duckdb.DuckDBPyConnection, schema: str, table: str) -> int:
    ((rows,),) = run_sql(conn, _SQL / "count_rows.sql", identifiers={"schema": schema, "table": table})
    return int(rows)


def _materializations(
    conn: duckdb.DuckDBPyConnection, tally: Tally, service_metadata: dict[str, Any]
) -> Iterator[dg.MaterializeResult[None]]:
    # From USAGE_TABLES itself: a table added there is counted (a list of its own drifted once).
    table_rows = {t.name: _row_count(conn, t.schema, t.table) for t in USAGE_TABLES}
    days = sorted(tally.days)
    common = {
        "days_covered": dg.MetadataValue.int(len(days)),
        "first_day": days[0].isoformat() if days else None,
        "last_day": days[-1].isoformat() if days else None,
        "not_available": dg.MetadataValue.json(unavailable_lines(tally.not_available, today=utc_today())),
    }
    for t in USAGE_TABLES:
        metadata: dict[str, Any] = {
            **common,
            "dagster/row_count": dg.MetadataValue.int(table_rows.get(t.name, 0)),
            "rows_landed": dg.MetadataValue.int(tally.rows.get(t.name, 0)),
        }
        if t.table == "report_files":
            metadata |= {
                "files": tally.files,
                "bytes": dg.MetadataValue.int(tally.bytes),
                "quarantined_lines": dg.MetadataValue.int(tally.quarantined),
                "repeated_lines": dg.MetadataValue.int(tally.repeated),
                "file_restarts": dg.MetadataValue.int(tally.restarts),
                **service_metadata,
            }
        if t.table in ("agent_activity", "dim_agent"):
            metadata |= {
                "agents_seen": dg.MetadataValue.int(len(tally.agents)),
                "agent_ids": ", ".join(sorted(tally.agents)),
            }
        if t.table == "daily_totals":
            metadata["newest_day"] = _newest_day_preview(conn)
        if t.table == "field_drift":
            metadata["paths_seen"] = dg.MetadataValue.json(
                {path: {"drift": drift, "records": records} for path, (drift, records) in sorted(tally.drift.items())}
            )
        yield dg.MaterializeResult(asset_key=table_key(t), metadata=metadata)


def _run(
    context: dg.AssetExecutionContext,
    *,
    service: ServiceResource,
    warehouse: WarehouseResource,
    storage: StorageResource,
    kind: Kind,
    days: list[date],
) -> Iterator[dg.MaterializeResult[None] | dg.AssetCheckResult]:
    settings = service.settings()
    started = datetime.now(UTC)
    with service.client() as client, warehouse.get_connection() as conn:
        before = client.rate_limit()["resources"]["core"]["remaining"]
        refs = report_refs(settings, kind=kind, days=days, client=client)
        tally = ingest_all(
            context, client=client, conn=conn, raw_dir=storage.raw_path, refs=refs, pseudonym_key=storage.pseudonym_key
        )
        service_metadata = _client_metadata(client, before)
        yield from _materializations(conn, tally, service_metadata)
        available_day = utc_today() - timedelta(days=1)
        outcomes = run_checks(
            conn,
            RUN_CHECKS,
            since=started,
            start_day=min(days),
            end_day=max(days),
            available_day=available_day.isoformat(),
        )
    yield from check_results(REPORT_CHECKS, tally.checks)
    yield from check_results(RUN_CHECKS, outcomes)
    raise_failures(tally)


def build_usage_assets(partitions_def: dg.PartitionsDefinition) -> list[dg.AssetsDefinition]:
    @dg.multi_asset(
        name="usage_reports_daily",
        specs=table_specs(GROUP),
        check_specs=check_specs((*REPORT_CHECKS, *RUN_CHECKS)),
        partitions_def=partitions_def,
        backfill_policy=dg.BackfillPolicy.single_run(),
        pool=POOL,
        can_subset=False,
    )
    def usage_reports_daily(
        context: dg.AssetExecutionContext,
        service: ServiceResource,
        warehouse: WarehouseResource,
        storage: StorageResource,
    ) -> Iterator[dg.MaterializeResult[None] | dg.AssetCheckResult]:
        """The 1-day reports of each day in the run's partitions, every scope and level."""
        days = [date.fromisoformat(key) for key in context.partition_keys]
        yield from _run(context, service=service, warehouse=warehouse, storage=storage, kind="1-day", days=days)

    @dg.asset(
        key=LATEST_28_DAY_REPORT,
        group_name=GROUP,
        pool=POOL,
        kinds={"duckdb"},
        deps=[dg.AssetKey(["core", "daily_totals"])],
    )
    def latest_28_day_report(
        context: dg.AssetExecutionContext,
        service: ServiceResource,
        warehouse: WarehouseResource,
        storage: StorageResource,
    ) -> dg.MaterializeResult[None]:
        """The newest 28-day reports, landed into the same core tables; its date range is its key."""
        settings = service.settings()
        with service.client() as client, warehouse.get_connection() as conn:
            tally = ingest_all(
                context,
                client=client,
                conn=conn,
                raw_dir=storage.raw_path,
                refs=report_refs(settings, kind="28-day", days=[None], client=client),
                pseudonym_key=storage.pseudonym_key,
            )
            metadata = _client_metadata(client, None)
        raise_failures(tally)
        days = sorted(tally.days)
        report_range = f"{days[0]}..{days[-1]}" if days else "none"
        return dg.MaterializeResult(
            metadata={
                "report_range": report_range,
                "days_covered": dg.MetadataValue.int(len(days)),
                "files": tally.files,
                "bytes": dg.MetadataValue.int(tally.bytes),
                "quarantined_lines": dg.MetadataValue.int(tally.quarantined),
                "repeated_lines": dg.MetadataValue.int(tally.repeated),
                "agents_seen": dg.MetadataValue.int(len(tally.agents)),
                "not_available": dg.MetadataValue.json(unavailable_lines(tally.not_available, today=utc_today())),
                **metadata,
            },
            data_version=dg.DataVersion(report_range),
        )

    return [usage_reports_daily, latest_28_day_report]
