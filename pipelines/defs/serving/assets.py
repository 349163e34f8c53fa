"""The read-only serving copy that BI tools point at, published after each good run."""

from pathlib import Path

import dagster as dg
from dagster_duckdb import DuckDBResource

from pipelines.defs.resources import StorageResource
from pipelines.warehouse.serving import publish_serving_copy

# Downstream of every table, so a failing blocking check upstream keeps the last good copy.
_UPSTREAM = [
    ["core", "daily_totals"],
    ["core", "user_daily_totals"],
    ["core", "breakdowns"],
    ["core", "agent_activity"],
    ["core", "dim_agent"],
    ["core", "agent_names"],
    ["raw", "report_files"],
    ["snapshots", "repositories"],
    ["snapshots", "repository_stats"],
    ["snapshots", "issues"],
    ["snapshots", "org_members"],
    ["events", "webhook_deliveries"],
    ["usage", "latest_28_day_report"],
]


@dg.asset(
    key=["serving", "warehouse_copy"],
    group_name="serving",
    deps=[dg.AssetKey(key) for key in _UPSTREAM],
    kinds={"duckdb"},
)
def serving_copy(warehouse: DuckDBResource, storage: StorageResource) -> dg.MaterializeResult:
    """A read-only copy of the warehouse (tables and bi.* views) for BI tools, replaced atomically."""
    with warehouse.get_connection() as conn:
        path = publish_serving_copy(conn, target=Path(storage.serving_path))
    return dg.MaterializeResult(
        metadata={"path": dg.MetadataValue.path(str(path.resolve())), "bytes": dg.MetadataValue.int(path.stat().st_size)}
    )
