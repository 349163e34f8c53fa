"""`metrics-etl export`: one bi.* view to CSV or Parquet.

Rows stream through Arrow record batches, so memory stays at one batch whatever the view's
size; the file appears under its name only once complete.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Literal

import pyarrow as pa
import pyarrow.csv as pa_csv
import pyarrow.parquet as pa_parquet

from pipelines.bi._sources import BiError, BiSources, UnknownView, known_views, open_bi

Format = Literal["csv", "parquet"]
FORMATS: tuple[Format, ...] = ("csv", "parquet")
_BATCH_ROWS = 64_000


def export_view(*, sources: BiSources, view: str, fmt: Format, out: Path) -> int:
    """Write bi.<view> to `out` as CSV or Parquet; returns the number of rows written."""
    if fmt not in FORMATS:
        raise BiError(f"unknown format {fmt!r}: use one of {', '.join(FORMATS)}")
    name = view.removeprefix("bi.")
    with open_bi(sources=sources) as conn:
        views = known_views(conn)
        if name not in views:
            raise UnknownView(f"unknown view {view!r}: known views are {', '.join(views) or '(none)'}")
        # The name is one of the catalog's own view names (checked above), quoted as an identifier.
        reader = conn.sql(f'SELECT * FROM bi."{name}" ORDER BY ALL').to_arrow_reader(_BATCH_ROWS)
        out.parent.mkdir(parents=True, exist_ok=True)
        partial = out.with_name(f".{out.name}.partial")
        try:
            rows = _write(reader=reader, fmt=fmt, path=partial)
            os.replace(partial, out)
        finally:
            partial.unlink(missing_ok=True)
    return rows


def _write(*, reader: pa.RecordBatchReader, fmt: Format, path: Path) -> int:
    rows = 0
    writer_type = pa_parquet.ParquetWriter if fmt == "parquet" else pa_csv.CSVWriter
    with writer_type(str(path), reader.schema) as writer:
        for batch in reader:
            writer.write_batch(batch)
            rows += batch.num_rows
    return rows
