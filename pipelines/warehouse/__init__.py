"""DuckDB warehouse: versioned migrations from sql/schema, staging, and the atomic day replace."""

from pipelines.warehouse.migrate import migrate
from pipelines.warehouse.replace import ReportKey, discard_staged_file, open_stage, replace_report, stage_frame

__all__ = ["ReportKey", "discard_staged_file", "migrate", "open_stage", "replace_report", "stage_frame"]
