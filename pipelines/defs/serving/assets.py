"""The Parquet lake and the serving database BI tools point at, published after each good run."""

from pathlib import Path

import dagster as dg

from pipelines._clock import utc_today
from pipelines.defs._tables import table_keys
from pipelines.defs.resources import StorageResource, WarehouseResource
from pipelines.defs.usage.assets import LATEST_28_DAY_REPORT
from pipelines.privacy import apply_retention
from pipelines.publish.lake import publish
from pipelines.publish.pseudonymous import publish_pseudonymous

SERVING = dg.AssetKey(["serving", "warehouse_copy"])
# Downstream of every table an asset writes (the catalog's: the lake publishes each) and of the
# 28-day report's landing into them: a run holding both publishes after them, and a failing
# blocking check or landing upstream keeps the last good state.
_UPSTREAM = [*table_keys(), LATEST_28_DAY_REPORT]


class PublishConfig(dg.Config):
    full: bool = False  # write every partition of the lake again from the warehouse


@dg.asset(
    key=SERVING,
    group_name="serving",
    deps=_UPSTREAM,
    kinds={"duckdb", "parquet"},
)
def serving_copy(
    context: dg.AssetExecutionContext, config: PublishConfig, warehouse: WarehouseResource, storage: StorageResource
) -> dg.MaterializeResult[None]:
    """A new version of the lake (Parquet, LAKE_PATH: the changed partitions written, the others
    linked, made visible whole), the serving database of views over it (SERVING_PATH) for BI
    tools, and the aggregate tier beside them. Lake files that are not as this warehouse last
    published them (a restored warehouse, a damaged file) are written again. With
    METRICS_RETENTION_DAYS, what expired goes first; with METRICS_PSEUDONYM_KEY, the pseudonymous
    tier is written too (docs/privacy.md)."""
    retention = None
    with warehouse.get_connection() as conn:
        if storage.retention_days is not None:
            retention = apply_retention(conn, days=storage.retention_days, today=utc_today(), raw_dir=storage.raw_path)
            if retention.line():
                context.log.info(retention.line())
        result = publish(
            conn,
            lake=Path(storage.lake_path),
            serving=Path(storage.serving_path),
            full=config.full,
            k=storage.aggregate_k,
        )
        if storage.pseudonym_key:
            publish_pseudonymous(conn, serving=Path(storage.serving_path), key=storage.pseudonym_key)
    warnings = result.warnings()
    for warning in warnings:
        context.log.warning(warning)
    return dg.MaterializeResult(
        metadata={
            "path": dg.MetadataValue.path(str(result.serving_path.resolve())),
            "lake": dg.MetadataValue.path(str(Path(storage.lake_path).resolve())),
            "partitions_written": dg.MetadataValue.int(result.partitions_written),
            "partitions_linked": dg.MetadataValue.int(result.partitions_linked),
            "partitions_removed": dg.MetadataValue.int(result.partitions_removed),
            "tables_written_whole": dg.MetadataValue.int(result.tables_written),
            "partitions_repaired": dg.MetadataValue.int(len(result.repaired)),
            "warnings": dg.MetadataValue.json(list(warnings)),
            "retention_rows_removed": dg.MetadataValue.int(sum(retention.rows.values()) if retention else 0),
            "retention_files_removed": dg.MetadataValue.int(retention.files if retention else 0),
        }
    )


# `metrics-etl publish`: the lake and the serving database alone, e.g. `--full` after an incident.
PUBLISH_JOB = "serving_publish_job"
SERVING_OP = "serving__warehouse_copy"  # the asset's op, whose config takes `full`
publish_job = dg.define_asset_job(PUBLISH_JOB, selection=[SERVING])
