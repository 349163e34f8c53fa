"""DuckDB warehouse: versioned migrations from sql/schema and the one-transaction report landing."""

from pipelines.warehouse.migrate import migrate
from pipelines.warehouse.replace import ReportLanding, ReportSlice, SharedRecordKeys, UserTeams, land_report
from pipelines.warehouse.sql import rollback, run_sql

__all__ = [
    "ReportLanding",
    "ReportSlice",
    "SharedRecordKeys",
    "UserTeams",
    "land_report",
    "migrate",
    "rollback",
    "run_sql",
]
