"""Pure Polars transforms from parsed report records to warehouse frames (no I/O)."""

from pipelines.transform.records import ReportContext, Transformed, empty_records, transform_records

__all__ = ["ReportContext", "Transformed", "empty_records", "transform_records"]
