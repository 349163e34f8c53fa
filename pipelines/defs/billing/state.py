"""Today's billing state and the usage report exports per user (docs/billing.md), run by
billing_job beside the billed usage.

`billing_state`: every enterprise's cost centers and their resources, budgets and their user
states, and every organization's seat breakdown and policies, as the service shows them now
(today's snapshot day, replaced by a re-run). `billing_exports`: each enterprise's billed AI
credits per user, the months not landed closed. Their tables are the catalog's of group
`billing` that these landings write (pipelines/warehouse/billing_state.py STATE_TABLES, and
billing.user_usage); a scope whose token cannot read them is said in one line, and the run goes on.
"""

from collections.abc import Iterator

import dagster as dg

from pipelines._clock import utc_today
from pipelines.defs._tables import table_key
from pipelines.defs.billing.assets import GROUP, POOL, BillingConfig
from pipelines.defs.billing.not_read import NOT_READ, not_read
from pipelines.defs.resources import ServiceResource, StorageResource, WarehouseResource
from pipelines.ingest.billing_exports import ingest_exports
from pipelines.ingest.billing_state import run_billing_state
from pipelines.warehouse.billing_exports import USER_USAGE
from pipelines.warehouse.billing_state import STATE_TABLES
from pipelines.warehouse.catalog import table
from pipelines.warehouse.erasure import load_forgotten

STATE_KEYS = {t.name: table_key(t) for t in STATE_TABLES}
EXPORT_KEYS = {USER_USAGE: table_key(table(USER_USAGE))}


def _specs(keys: dict[str, dg.AssetKey]) -> list[dg.AssetSpec]:
    return [
        dg.AssetSpec(key, group_name=GROUP, description=table(name).description, kinds={"duckdb"})
        for name, key in keys.items()
    ]


@dg.multi_asset(name="billing_state", specs=_specs(STATE_KEYS), pool=POOL, can_subset=False)
def billing_state(
    context: dg.AssetExecutionContext,
    service: ServiceResource,
    warehouse: WarehouseResource,
    storage: StorageResource,
) -> Iterator[dg.MaterializeResult[None]]:
    """Today's cost centers, budgets with their user states, and seat breakdowns, without the
    people `metrics-etl forget` erased; a scope refused is said once and keeps what it had."""
    settings = service.settings()
    day = utc_today()
    # BILLING_MONTHS=0 is billing off: nothing asked for, nothing landed.
    off = settings.billing_months == 0
    with service.client() as client, warehouse.get_connection() as conn:
        result = run_billing_state(
            client,
            conn,
            enterprises=() if off else settings.enterprises,
            orgs=() if off else settings.orgs,
            day=day,
            forgotten=load_forgotten(conn, storage.pseudonym_key),
        )
    for refused in result.refused:
        context.log.warning(refused.line())
    # A 403 is told with the usage's and the exports' refusals, once (not_read.py); any other, alone.
    denied = [not_read(r.scope, r.name, r.what, f"{r.status} {r.message}") for r in result.refused if r.status == 403]
    failed = [r.line() for r in result.refused if r.status != 403]
    for name, key in STATE_KEYS.items():
        metadata: dict[str, dg.RawMetadataValue] = {
            "dagster/row_count": dg.MetadataValue.int(result.frames[name].height),
            "snapshot_day": str(day),
            "billing_off": off,
        }
        if name == next(iter(STATE_KEYS)):  # said once, not once per table
            metadata |= {NOT_READ: dg.MetadataValue.json(denied), "warnings": dg.MetadataValue.json(failed)}
        yield dg.MaterializeResult(asset_key=key, metadata=metadata)


@dg.multi_asset(name="billing_exports", specs=_specs(EXPORT_KEYS), pool=POOL, can_subset=False)
def billing_exports(
    context: dg.AssetExecutionContext,
    config: BillingConfig,
    service: ServiceResource,
    warehouse: WarehouseResource,
    storage: StorageResource,
) -> Iterator[dg.MaterializeResult[None]]:
    """Each enterprise's billed AI credits per user, of the months not landed closed (all of
    them with `refetch`); lines that cannot land are quarantined, the others land."""
    settings = service.settings()
    with service.client() as client, warehouse.get_connection() as conn:
        result = ingest_exports(
            client,
            conn,
            enterprises=settings.enterprises,
            raw_dir=storage.raw_path,
            months=settings.billing_months,
            since=config.since_day(),
            refetch=config.refetch,
            forgotten=load_forgotten(conn, storage.pseudonym_key),
            say=context.log.warning,
        )
    metadata: dict[str, dg.RawMetadataValue] = {
        "dagster/row_count": dg.MetadataValue.int(result.rows),
        "months_landed": result.months,
        "quarantined_lines": result.quarantined,
        "calls": result.calls,
        NOT_READ: dg.MetadataValue.json(
            [not_read("enterprise", name, "exports", answer) for name, answer in result.denied.items()]
        ),
    }
    yield dg.MaterializeResult(asset_key=EXPORT_KEYS[USER_USAGE], metadata=metadata)
