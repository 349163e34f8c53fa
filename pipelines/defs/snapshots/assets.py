"""Daily snapshots of the organization's repositories, their counts, issues, members and seats."""

from collections.abc import Iterator
from datetime import date
from typing import Any

import dagster as dg

from pipelines._clock import utc_today
from pipelines.defs._checks import check_results, check_specs
from pipelines.defs._tables import table_specs
from pipelines.defs.resources import ServiceResource, StorageResource, WarehouseResource
from pipelines.defs.snapshots.checks import SNAPSHOT_CHECKS
from pipelines.ingest.snapshots import SnapshotSettings, run_snapshot
from pipelines.warehouse.catalog import tables
from pipelines.warehouse.checks import run_checks
from pipelines.warehouse.erasure import load_forgotten

GROUP = "snapshots"
POOL = "service_api"

# The snapshot assets: the catalog's tables of this concern (the seat totals and warnings are
# landed with them and shown in their metadata).
SNAPSHOT_TABLES = tuple(t.table for t in tables(asset=GROUP))


def build_snapshot_assets(partitions_def: dg.PartitionsDefinition) -> list[dg.AssetsDefinition]:
    @dg.multi_asset(
        name="snapshots_daily",
        specs=table_specs(GROUP),
        check_specs=check_specs(SNAPSHOT_CHECKS),
        partitions_def=partitions_def,
        pool=POOL,
        can_subset=False,
    )
    def snapshots_daily(
        context: dg.AssetExecutionContext, service: ServiceResource, warehouse: WarehouseResource,
        storage: StorageResource,
    ) -> Iterator[dg.MaterializeResult[None] | dg.AssetCheckResult]:
        """The service's current state, recorded as today's snapshot (re-running today replaces it),
        without the people `metrics-etl forget` erased."""
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
            result = run_snapshot(client, conn, settings=snapshot_settings, day=day, forgotten=forgotten,
                                  raw_dir=storage.raw_path)
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
                yield dg.MaterializeResult(asset_key=dg.AssetKey(["snapshots", table]), metadata=metadata)
            outcomes = run_checks(conn, SNAPSHOT_CHECKS)
        yield from check_results(SNAPSHOT_CHECKS, outcomes)

    return [snapshots_daily]
