"""core.agent_vendors made the declared agent map (pipelines/transform/vendor_agents.py).

`migrate` calls it, as it writes the bill's model names: the table is the declaration, so the
views and the serving database read the map as a table, with no agent id written into a view.
"""

from __future__ import annotations

import duckdb

from pipelines.transform.vendor_agents import AGENT_VENDORS
from pipelines.warehouse.sql import rollback, run_sql

__all__ = ["refresh_agent_vendors"]


def refresh_agent_vendors(conn: duckdb.DuckDBPyConnection) -> bool:
    """Make core.agent_vendors hold AGENT_VENDORS, in one transaction; whether it changed."""
    declared = list(AGENT_VENDORS)
    if run_sql(conn, "warehouse/select_agent_vendors.sql") == declared:
        return False
    conn.execute("BEGIN TRANSACTION")
    try:
        run_sql(conn, "warehouse/delete_agent_vendors.sql")
        for agent_id, vendor in declared:
            run_sql(conn, "warehouse/insert_agent_vendor.sql", agent_id=agent_id, vendor=vendor)
        conn.execute("COMMIT")
    except BaseException:
        rollback(conn)
        raise
    return True
