"""Ingestion's exceptions; messages name what and where, never a signed link's query."""


class IngestError(Exception):
    """Root of ingestion failures."""


class DownloadGaveUp(IngestError):
    """A report file could not be fetched whole within the bounded number of attempts."""


class ReportChanged(IngestError):
    """Refreshed metadata (after an expired link) describes a different report."""
