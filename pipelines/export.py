"""`metrics-etl export`: one bi.* view to CSV or Parquet, read from the serving database.

Reads the serving database (never the warehouse the pipeline writes) when there is one, so an export
neither waits for nor blocks a run. Rows stream through Arrow record batches, so memory stays at
one batch whatever the view's size; the file appears under its name only once complete.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import duckdb
import pyarrow.csv as pa_csv
import pyarrow.parquet as pa_parquet

from pipelines.config import Settings
from pipelines.warehouse.sql import run_sql

Format = Literal["csv", "parquet"]
FORMATS: tuple[Format, ...] = ("csv", "parquet")
_BATCH_ROWS = 64_000


class BiError(Exception):
    """A BI command cannot proceed; the message says what is missing or wrong in one line."""


class NoWarehouse(BiError):
    """Neither the serving database nor the warehouse exists yet."""


class UnknownView(BiError):
    """The view asked for is not one of the bi.* views."""


@dataclass(frozen=True)
class BiSources:
    """Where BI reads from: the serving database first, the warehouse while there is none yet."""

    serving_path: Path
    warehouse_path: Path

    @classmethod
    def from_env(cls) -> BiSources:
        settings = Settings.from_env()
        return cls(serving_path=settings.serving_path, warehouse_path=settings.warehouse_path)

    def path(self) -> Path:
        for candidate in (self.serving_path, self.warehouse_path):
            if candidate.is_file():
                return candidate
        raise NoWarehouse(
            f"no warehouse yet: neither {self.serving_path} nor {self.warehouse_path} exists "
            "(run `metrics-etl demo` or `metrics-etl run` first, or set SERVING_PATH)"
        )


@contextmanager
def open_bi(*, sources: BiSources) -> Iterator[duckdb.DuckDBPyConnection]:
    """A read-only connection to the serving database (or the warehouse if there is no copy yet)."""
    path = sources.path()
    try:
        conn = duckdb.connect(str(path), read_only=True)
    except duckdb.IOException as exc:
        raise BiError(f"cannot open {path} read-only: {str(exc).splitlines()[0]}") from None
    try:
        yield conn
    finally:
        conn.close()


def known_views(conn: duckdb.DuckDBPyConnection) -> list[str]:
    """Names of the bi.* views, sorted."""
    return [row[0] for row in run_sql(conn, "report/select_bi_views.sql")]


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


def _write(*, reader, fmt: Format, path: Path) -> int:
    rows = 0
    writer_type = pa_parquet.ParquetWriter if fmt == "parquet" else pa_csv.CSVWriter
    with writer_type(str(path), reader.schema) as writer:
        for batch in reader:
            writer.write_batch(batch)
            rows += batch.num_rows
    return rows
