"""Webhook deliveries from the receiver's spool into events.webhook_deliveries."""

from collections.abc import Iterator
from datetime import UTC, datetime

import dagster as dg

from pipelines.defs._checks import check_results, check_specs
from pipelines.defs._tables import table_key
from pipelines.defs.events.checks import EVENT_CHECKS
from pipelines.defs.resources import StorageResource, WarehouseResource
from pipelines.warehouse.catalog import table
from pipelines.warehouse.checks import run_checks
from pipelines.warehouse.erasure import load_forgotten
from pipelines.webhooks.load import load_spool, prune_spool

_DELIVERIES = table("events.webhook_deliveries")
DELIVERIES = table_key(_DELIVERIES)
LOADED_SINCE = "loaded_since"  # the metadata entry: when the load began (ISO 8601, UTC)


@dg.asset(key=DELIVERIES, group_name=_DELIVERIES.asset, kinds={"duckdb"}, check_specs=check_specs(EVENT_CHECKS))
def webhook_deliveries(
    context: dg.AssetExecutionContext, warehouse: WarehouseResource, storage: StorageResource
) -> Iterator[dg.MaterializeResult[None] | dg.AssetCheckResult]:
    """Every accepted delivery once; the loader's position commits with the rows it loaded. A
    delivery naming a person `metrics-etl forget` erased is passed without landing."""
    # Every row this load inserts has a later loaded_at: the snapshot refresh reads the
    # repositories they name by it (run config names no repository: a name may be a login).
    loaded_since = datetime.now(UTC)
    with warehouse.get_connection() as conn:
        result = load_spool(conn, storage.spool_path, forgotten=load_forgotten(conn, storage.pseudonym_key))
        # Segments fully loaded and no longer written are deleted; the rows and offsets stay.
        pruned = prune_spool(conn, storage.spool_path)
        (total,) = conn.execute("SELECT count(*) FROM events.webhook_deliveries").fetchone() or (0,)
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
                "erased_passed": dg.MetadataValue.int(result.erased),
                "dagster/row_count": dg.MetadataValue.int(total),
                # How many, never which: a repository a user owns is named by their login.
                "repositories": dg.MetadataValue.int(len(result.repositories)),
                LOADED_SINCE: dg.MetadataValue.text(loaded_since.isoformat()),
                "spool_segments_pruned": dg.MetadataValue.int(len(pruned)),
            }
        )
        # The checks look at what this load wrote, not at rows an earlier load left behind.
        outcomes = run_checks(conn, EVENT_CHECKS, delivery_ids=list(result.delivery_ids))
    yield from check_results(EVENT_CHECKS, outcomes)
