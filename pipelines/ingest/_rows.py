"""The raw.* rows of a report file: which report it is, the file itself, its quarantined lines."""

from __future__ import annotations

import polars as pl

from pipelines.ingest._lines import Reject
from pipelines.ingest.archive import ArchivedFile
from pipelines.transform import Provenance


def report_columns(prov: Provenance) -> list[pl.Expr]:
    """The columns naming the report a raw row belongs to."""
    return [
        pl.lit(prov.ref.scope).alias("scope"),
        pl.lit(prov.ref.scope_name).alias("scope_name"),
        pl.lit(prov.ref.kind).alias("report_kind"),
        pl.lit(prov.ref.level).alias("level"),
        pl.lit(prov.start_day).alias("report_start_day"),
        pl.lit(prov.end_day).alias("report_end_day"),
    ]


def quarantine_frame(
    prov: Provenance, rejects: list[Reject], *, file_index: int, archive_path: str, link: str
) -> pl.DataFrame:
    return pl.DataFrame(
        {
            "line_number": [r.line_number for r in rejects],
            "reason": [r.reason for r in rejects],
            "line_text": [r.line_text for r in rejects],
        },
        schema={"line_number": pl.Int64(), "reason": pl.String(), "line_text": pl.String()},
    ).with_columns(
        *report_columns(prov),
        pl.lit(file_index, dtype=pl.Int32()).alias("file_index"),
        pl.lit(archive_path).alias("archive_path"),
        pl.lit(link).alias("link"),
        pl.lit(prov.fetched_at, dtype=pl.Datetime("us", "UTC")).alias("fetched_at"),
    )


def file_row(
    prov: Provenance,
    archived: ArchivedFile,
    *,
    file_index: int,
    records: int,
    quarantined: int,
    repeated: int,
    link: str,
) -> pl.DataFrame:
    """The raw.report_files row of one downloaded file; `repeated`: its lines that repeated an
    earlier line of the same key, landed once (pipelines/transform/repeats.py)."""
    return pl.DataFrame(
        {
            "file_index": [file_index],
            "bytes": [archived.bytes],
            "sha256": [archived.sha256],
            "records": [records],
            "quarantined": [quarantined],
            "repeated_lines": [repeated],
            "archive_path": [str(archived.path)],
            "link": [link],
            "fetched_at": [prov.fetched_at],
        },
        schema_overrides={
            "file_index": pl.Int32(),
            "repeated_lines": pl.Int64(),
            "fetched_at": pl.Datetime("us", "UTC"),
        },
    ).select(*report_columns(prov), pl.all())
