"""The billed usage of every scope (docs/billing.md): the schedule's run fetches the months not
landed closed of the BILLING_MONTHS the service keeps (the backfill, within the rate-limit
budget), a `metrics-etl run` those from its first day's month on, and lands them.

Its tables are the catalog's of group `billing` that a usage feed lands (pipelines/ingest/billing.py
FEEDS) and billing.fetches; unpartitioned, as the months it fetches are its own business (a
closed month is never fetched again, an open one every run).
"""

from collections.abc import Iterator
from datetime import date

import dagster as dg

from pipelines.defs._tables import table_key
from pipelines.defs.billing.not_read import NOT_READ, not_read
from pipelines.defs.resources import ServiceResource, WarehouseResource
from pipelines.ingest.billing import FEEDS, ingest_billing
from pipelines.warehouse.catalog import table, tables

GROUP = "billing"
POOL = "service_api"
_FETCHES = "billing.fetches"
# The tables this asset lands: the feeds' and the record of their fetches.
BILLING_USAGE_KEYS = {
    t.name: table_key(t) for t in tables(asset=GROUP) if t.name in {f.table for f in FEEDS} | {_FETCHES}
}


class BillingConfig(dg.Config):
    refetch: bool = False  # fetch the closed months again too (`metrics-etl run --refetch`)
    # A run's first day (ISO): only the months from its month on (`metrics-etl run` lands the bill
    # of the months its days fall in); empty, the schedule's: BILLING_MONTHS back, the backfill.
    since: str = ""

    def since_day(self) -> date | None:
        return date.fromisoformat(self.since) if self.since else None


@dg.multi_asset(
    name="billing_usage",
    specs=[
        dg.AssetSpec(key, group_name=GROUP, description=table(name).description, kinds={"duckdb"})
        for name, key in BILLING_USAGE_KEYS.items()
    ],
    pool=POOL,
    can_subset=False,
)
def billing_usage(
    context: dg.AssetExecutionContext, config: BillingConfig, service: ServiceResource, warehouse: WarehouseResource
) -> Iterator[dg.MaterializeResult[None]]:
    """Every scope's billed usage of the months not yet closed (the history the first time,
    BILLING_MONTHS back, newest first, as far as the rate-limit budget allows); a scope whose
    token cannot read billing is said in one line and recorded `denied`, and the run goes on."""
    settings = service.settings()
    with service.client() as client, warehouse.get_connection() as conn:
        result = ingest_billing(
            client,
            conn,
            scopes=settings.scopes,
            months=settings.billing_months,
            since=config.since_day(),
            refetch=config.refetch,
            say=context.log.warning,
        )
    if result.drift:
        context.log.warning("billing answers carried undeclared fields: " + ", ".join(result.drift))
    for name, key in BILLING_USAGE_KEYS.items():
        metadata: dict[str, dg.RawMetadataValue] = {"dagster/row_count": dg.MetadataValue.int(result.rows.get(name, 0))}
        if name == _FETCHES:
            # `warnings`: the lines `metrics-etl run` shows under the run (one per scope refused).
            # A scope refused (403) is told with the state's and the exports' refusals, once (not_read.py).
            failed = [r.line() for r in result.refused if r.status != "denied"]
            warnings = [*failed, *([result.deferred] if result.deferred else [])] + (
                ["billing answers carried undeclared fields: " + ", ".join(result.drift)] if result.drift else []
            )
            denied = [not_read(r.scope, r.name, "usage", r.message) for r in result.refused if r.status == "denied"]
            metadata |= {
                "calls": result.calls,
                "months_landed": result.months,
                "scopes_denied": len(denied),
                "warnings": dg.MetadataValue.json(warnings),
                NOT_READ: dg.MetadataValue.json(denied),
            }
        yield dg.MaterializeResult(asset_key=key, metadata=metadata)
