"""Ingestion: usage reports (report -> archive -> parse -> transform -> land) and repository snapshots."""

from pipelines.ingest.errors import DownloadGaveUp, IngestError, ReportChanged
from pipelines.ingest.report import DEFAULT_BATCH_ROWS, IngestResult, ingest_report

__all__ = ["DEFAULT_BATCH_ROWS", "DownloadGaveUp", "IngestError", "IngestResult", "ReportChanged", "ingest_report"]
