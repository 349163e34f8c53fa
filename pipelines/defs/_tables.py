"""The catalog's tables as Dagster assets (pipelines/warehouse/catalog.py: a table's `asset` names
the group whose asset shows it).

A table's asset key is its schema and name: users' run history in Dagster is keyed by it, so it
is made here only, from the catalog, and never renamed.
"""

from __future__ import annotations

from collections.abc import Iterable

import dagster as dg

from pipelines.warehouse import catalog
from pipelines.warehouse.catalog import Table

__all__ = ["table_key", "table_keys", "table_specs"]


def table_key(t: Table) -> dg.AssetKey:
    return dg.AssetKey([t.schema, t.table])


def table_keys(tables: Iterable[Table] | None = None) -> list[dg.AssetKey]:
    """The asset key of every table an asset shows (of the catalog unless `tables` are given),
    in declaration order: the lake publishes every catalog table, so these are what the publish
    is downstream of."""
    # The catalog's TABLES read at call time, not bound at import: a catalog given one more table
    # (tests/integration/dagster/test_defs.py) is the graph's.
    return [table_key(t) for t in (catalog.TABLES if tables is None else tables) if t.asset is not None]


def table_specs(group: str) -> list[dg.AssetSpec]:
    """The specs of the tables the catalog shows in `group`, described as the catalog says."""
    return [
        dg.AssetSpec(table_key(t), group_name=group, description=t.description, kinds={"duckdb"})
        for t in catalog.tables(asset=group)
    ]
