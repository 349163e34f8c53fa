"""Webhook deliveries from the receiver's spool into events.webhook_deliveries."""

from pathlib import Path

import dagster as dg
from dagster_duckdb import DuckDBResource

from pipelines.defs.checks import EVENT_CHECKS, evaluate, specs
from pipelines.defs.resources import StorageResource
from pipelines.warehouse import migrate
from pipelines.webhooks.load import load_spool, prune_spool

DELIVERIES = dg.AssetKey(["events", "webhook_deliveries"])


@dg.asset(key=DELIVERIES, group_name="events", kinds={"duckdb"}, check_specs=specs(EVENT_CHECKS))
def webhook_deliveries(context: dg.AssetExecutionContext, warehouse: DuckDBResource, storage: StorageResource):
    """Every accepted delivery once; the loader's position commits with the rows it loaded."""
    with warehouse.get_connection() as conn:
        migrate(conn)
        result = load_spool(conn, Path(storage.spool_dir))
        # Segments fully loaded and no longer written are deleted; the rows and offsets stay.
        pruned = prune_spool(conn, Path(storage.spool_dir))
        total = conn.execute("SELECT count(*) FROM events.webhook_deliveries").fetchone()[0]
        context.log.info(
            "loaded %d deliveries (%d redeliveries skipped, %d quarantined)",
            result.loaded,
            result.duplicates,
            result.quarantined,
        )
        yield dg.MaterializeResult(
            metadata={
                "loaded": dg.MetadataValue.int(result.loaded),
                "redeliveries_skipped": dg.MetadataValue.int(result.duplicates),
                "quarantined": dg.MetadataValue.int(result.quarantined),
                "dagster/row_count": dg.MetadataValue.int(total),
                "repositories": sorted(result.repositories),
                "spool_segments_pruned": dg.MetadataValue.int(len(pruned)),
            }
        )
        # The checks look at what this load wrote, not at rows an earlier load left behind.
        yield from evaluate(conn, EVENT_CHECKS, delivery_ids=list(result.delivery_ids))
