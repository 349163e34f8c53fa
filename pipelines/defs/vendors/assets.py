"""Each vendor's own usage (docs/vendors.md): a run lands the days of its partitions not yet
landed final, for every vendor whose key is set, and each vendor's state now (Cursor's members
and spend). A vendor skipped (its key unset), refused or failing is one line under the run; the
others, and the service's data, land as ever.

Its tables are the catalog's of group `vendors`; its partitions are days of its own, up to today
(a vendor answers for today, provisional until its lag has passed).
"""

from collections.abc import Iterator
from datetime import UTC, date, datetime
from pathlib import Path

import dagster as dg

from pipelines.defs._tables import table_key, table_specs
from pipelines.defs.resources import StorageResource, WarehouseResource
from pipelines.defs.vendors.resource import VendorsResource
from pipelines.ingest.identities import land_operator_identities, unmapped_notes
from pipelines.ingest.vendors import VendorResult, ingest_vendor
from pipelines.vendors import VendorClient
from pipelines.warehouse.catalog import tables
from pipelines.warehouse.erasure import load_forgotten

__all__ = ["GROUP", "POOL", "VendorRunConfig", "build_vendor_assets"]

GROUP = "vendors"
# One run at a time calls the vendors (deploy/dagster.yaml gives every pool one slot): two
# would share each vendor's per-minute limit.
POOL = "vendor_api"
_FETCHES = "vendors.fetches"


class VendorRunConfig(dg.Config):
    refetch: bool = False  # fetch the days landed final again too (`metrics-etl run --refetch`)


def _warnings(skipped: list[str], results: list[VendorResult]) -> list[str]:
    lines = [*skipped, *(r.line for r in results if r.line)]
    for r in results:
        if r.drift:
            lines.append(f"{r.vendor} answers carried undeclared fields: " + ", ".join(r.drift))
    return lines


def build_vendor_assets(partitions_def: dg.PartitionsDefinition) -> list[dg.AssetsDefinition]:
    @dg.multi_asset(
        name="vendor_usage",
        specs=table_specs(GROUP),
        partitions_def=partitions_def,
        backfill_policy=dg.BackfillPolicy.single_run(),
        pool=POOL,
        can_subset=False,
    )
    def vendor_usage(
        context: dg.AssetExecutionContext,
        config: VendorRunConfig,
        vendors: VendorsResource,
        warehouse: WarehouseResource,
        storage: StorageResource,
    ) -> Iterator[dg.MaterializeResult[None]]:
        """Every configured vendor's usage of the run's days not yet final, and its state now."""
        days = [date.fromisoformat(key) for key in context.partition_keys]
        configs, skipped = vendors.configs()
        results: list[VendorResult] = []
        with warehouse.get_connection() as conn:
            forgotten = load_forgotten(conn, storage.pseudonym_key)
            for vendor_config in configs.values():
                with VendorClient(vendor_config) as client:
                    results.append(
                        ingest_vendor(
                            client,
                            conn,
                            days=days,
                            raw_dir=storage.raw_path,
                            forgotten=forgotten,
                            refetch=config.refetch,
                            say=context.log.warning,
                        )
                    )
            if vendors.identity_map_path:
                read = land_operator_identities(
                    conn, Path(vendors.identity_map_path), read_day=datetime.now(UTC).date(), forgotten=forgotten
                )
                skipped += [f"IDENTITY_MAP_PATH: {error}" for error in read.errors]
            if configs:
                skipped += unmapped_notes(conn, first_day=min(days), last_day=max(days))
        for t in tables(asset=GROUP):
            landed = sum(r.rows.get(t.name, 0) for r in results)
            metadata: dict[str, dg.RawMetadataValue] = {"dagster/row_count": dg.MetadataValue.int(landed)}
            if t.name == _FETCHES:
                # `warnings`: the lines `metrics-etl run` shows under the run (a vendor skipped,
                # refused or failed; fields no declaration names).
                metadata |= {
                    "warnings": dg.MetadataValue.json(_warnings(skipped, results)),
                    "vendors": dg.MetadataValue.json(
                        {
                            r.vendor: {
                                "status": r.status,
                                "calls": r.calls,
                                "fetches": r.fetches,
                                "final_days": r.final_days,
                                "quarantined": r.quarantined,
                                "left_out": r.left_out,
                            }
                            for r in results
                        }
                    ),
                }
            yield dg.MaterializeResult(asset_key=table_key(t), metadata=metadata)

    return [vendor_usage]
