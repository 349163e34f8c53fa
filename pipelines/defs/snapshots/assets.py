"""Daily snapshots of the organization's repositories, their counts, issues, members and seats."""

from collections.abc import Iterator
from datetime import date, datetime
from typing import Any

import dagster as dg

from pipelines._clock import utc_today
from pipelines.defs._checks import check_results, check_specs
from pipelines.defs._tables import table_key, table_specs
from pipelines.defs.resources import ServiceResource, StorageResource, WarehouseResource
from pipelines.defs.snapshots.checks import SNAPSHOT_CHECKS
from pipelines.ingest.snapshot_refresh import Refresh, refresh_snapshot
from pipelines.ingest.snapshots import SnapshotSettings, run_snapshot
from pipelines.warehouse.catalog import tables
from pipelines.warehouse.checks import run_checks
from pipelines.warehouse.erasure import load_forgotten
from pipelines.warehouse.snapshots import day_rows

GROUP = "snapshots"
POOL = "service_api"

# The snapshot assets: the catalog's tables of this concern (the seat totals and warnings are
# landed with them and shown in their metadata).
SNAPSHOT_KEYS = {t.table: table_key(t) for t in tables(asset=GROUP)}
SNAPSHOT_TABLES = tuple(SNAPSHOT_KEYS)


_OP = "snapshots_daily"


class SnapshotConfig(dg.Config):
    """Unset (the schedule, `metrics-etl run`, the UI): the whole day is taken."""

    # Set by snapshot_refresh_sensor (an instant, ISO 8601): only the repositories named by the
    # webhook deliveries loaded since then are taken again; the day's other rows stay.
    deliveries_loaded_since: str | None = None


def refresh_run_config(since: str) -> dict[str, Any]:
    """The run config of a refresh of the repositories the deliveries loaded since `since` name."""
    return {"ops": {_OP: {"config": {"deliveries_loaded_since": since}}}}


def build_snapshot_assets(partitions_def: dg.PartitionsDefinition) -> list[dg.AssetsDefinition]:
    @dg.multi_asset(
        name=_OP,
        specs=table_specs(GROUP),
        check_specs=check_specs(SNAPSHOT_CHECKS),
        partitions_def=partitions_def,
        pool=POOL,
        can_subset=False,
    )
    def snapshots_daily(
        context: dg.AssetExecutionContext,
        config: SnapshotConfig,
        service: ServiceResource,
        warehouse: WarehouseResource,
        storage: StorageResource,
    ) -> Iterator[dg.MaterializeResult[None] | dg.AssetCheckResult]:
        """The service's current state, recorded as today's snapshot (re-running today replaces it),
        without the people `metrics-etl forget` erased; a refresh takes again only the repositories
        that webhook deliveries named (pipelines/ingest/snapshot_refresh.py)."""
        day = date.fromisoformat(context.partition_key)
        today = utc_today()
        if day != today:
            # The API answers with the state of now: filing it under another day would be false.
            raise dg.Failure(
                f"snapshot partition {day} is not today ({today}): the service only shows its current "
                "state, so a snapshot can only be taken (or retaken) for today"
            )
        snapshot_settings = SnapshotSettings.from_settings(service.settings())
        with service.client() as client, warehouse.get_connection() as conn:
            forgotten = load_forgotten(conn, storage.pseudonym_key)
            refresh = None
            if config.deliveries_loaded_since:
                since = datetime.fromisoformat(config.deliveries_loaded_since)
                refresh = refresh_snapshot(
                    client, conn, settings=snapshot_settings, day=day, since=since, forgotten=forgotten
                )
            if refresh is not None:
                yield from _refreshed(context, refresh, day_rows(conn, day=day), day=day)
                yield from check_results(SNAPSHOT_CHECKS, run_checks(conn, SNAPSHOT_CHECKS))
                return
            result = run_snapshot(
                client, conn, settings=snapshot_settings, day=day, forgotten=forgotten, raw_dir=storage.raw_path
            )
            for warning in result.warnings:
                context.log.warning(
                    "skipped %s (%s): %s %s", warning.repository, warning.endpoint, warning.status, warning.message
                )
            cost = result.cost.as_metadata()
            for table in SNAPSHOT_TABLES:
                metadata: dict[str, Any] = {
                    "dagster/row_count": dg.MetadataValue.int(result.frames[table].height),
                    "snapshot_day": day.isoformat(),
                }
                if table == "repositories":
                    metadata |= {"skipped_repositories": len(result.warnings), **cost}
                if table == "seats":
                    totals = result.frames["seat_totals"]
                    metadata |= {
                        "total_seats": dg.MetadataValue.int(int(totals["total_seats"].sum())),
                        "organizations_without_seats": sum(w.endpoint == "seats" for w in result.warnings),
                    }
                if table == "enterprise_seats":
                    totals = result.frames["enterprise_seat_totals"]
                    metadata |= {
                        "total_seats": dg.MetadataValue.int(int(totals["total_seats"].sum())),
                        "enterprises_without_seats": sum(w.endpoint == "enterprise_seats" for w in result.warnings),
                    }
                yield dg.MaterializeResult(asset_key=SNAPSHOT_KEYS[table], metadata=metadata)
            outcomes = run_checks(conn, SNAPSHOT_CHECKS)
        yield from check_results(SNAPSHOT_CHECKS, outcomes)

    return [snapshots_daily]


def _refreshed(
    context: dg.AssetExecutionContext, refresh: Refresh, rows: dict[str, int], *, day: date
) -> Iterator[dg.MaterializeResult[None]]:
    """Each table's materialization after a refresh: the day's rows, and how many repositories
    were taken again (never which: a name may be a login)."""
    result = refresh.result
    for warning in result.warnings if result else ():
        context.log.warning(
            "skipped %s (%s): %s %s", warning.repository, warning.endpoint, warning.status, warning.message
        )
    context.log.info("refreshed %d repositories named by webhook deliveries", len(refresh.repositories))
    for table in SNAPSHOT_TABLES:
        metadata: dict[str, Any] = {
            "dagster/row_count": dg.MetadataValue.int(rows[table]),
            "snapshot_day": day.isoformat(),
        }
        if table == "repositories":
            metadata["refreshed_repositories"] = len(refresh.repositories)
            if result:
                metadata |= {"skipped_repositories": len(result.warnings), **result.cost.as_metadata()}
        yield dg.MaterializeResult(asset_key=SNAPSHOT_KEYS[table], metadata=metadata)
