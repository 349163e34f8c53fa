"""DuckDB warehouse: versioned migrations from sql/schema and the one-transaction report landing."""

from pipelines.warehouse.migrate import migrate
from pipelines.warehouse.replace import ReportLanding, land_report
from pipelines.warehouse.report_slice import CarriedReport, ReportSlice
from pipelines.warehouse.sql import rollback, run_sql

__all__ = [
    "CarriedReport",
    "ReportLanding",
    "ReportSlice",
    "land_report",
    "migrate",
    "rollback",
    "run_sql",
]
