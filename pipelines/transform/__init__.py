"""Pure Polars transforms from parsed report records to warehouse frames (no I/O)."""

from pipelines.transform.provenance import Provenance
from pipelines.transform.records import Transformed, empty_records, transform_records

__all__ = ["Provenance", "Transformed", "empty_records", "transform_records"]
