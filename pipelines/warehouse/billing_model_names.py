"""billing.model_names made the declared map of bill model names to report model ids.

`migrate` calls it, as it writes the declared incidents: the table is the declaration
(pipelines/transform/billing_models.py), so the views and the serving database read the map
as a table, with no value written into a view's SQL.
"""

from __future__ import annotations

import duckdb

from pipelines.transform.billing_models import BILLING_MODELS
from pipelines.warehouse.sql import rollback, run_sql

__all__ = ["refresh_billing_models"]


def refresh_billing_models(conn: duckdb.DuckDBPyConnection) -> bool:
    """Make billing.model_names hold BILLING_MODELS, in one transaction; whether it changed."""
    declared = sorted(BILLING_MODELS.items(), key=lambda item: item[0])
    if run_sql(conn, "warehouse/select_billing_model_names.sql") == declared:
        return False
    conn.execute("BEGIN TRANSACTION")
    try:
        run_sql(conn, "warehouse/delete_billing_model_names.sql")
        for billing_model, model_id in declared:
            run_sql(conn, "warehouse/insert_billing_model_name.sql", billing_model=billing_model, model_id=model_id)
        conn.execute("COMMIT")
    except BaseException:
        rollback(conn)
        raise
    return True
