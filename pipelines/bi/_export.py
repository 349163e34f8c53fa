"""`metrics-etl export`: one bi.* view to CSV or Parquet.

Rows stream through Arrow record batches, so memory stays at one batch whatever the view's
size; the file appears under its name only once complete. Each export written for a data home
is recorded there (EXPORTS_RECORD: its path, view and format), so `forget` can write every one
again without the person it erased.
"""

from __future__ import annotations

import json
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
EXPORTS_RECORD = ".exports.json"  # in the data home: {file (from the home, if inside it): [view, format]}


def export_view(*, sources: BiSources, view: str, fmt: Format, out: Path, home: Path | None = None) -> int:
    """Write bi.<view> to `out` as CSV or Parquet; returns the number of rows written. With
    `home`, record it there for `rewrite_exports`."""
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
    if home is not None:
        exports = {_record_key(Path(path), home): list(was) for path, was in _recorded(home).items()}
        exports[_record_key(out, home)] = [name, fmt]
        record = home / EXPORTS_RECORD
        record.with_name(f".{record.name}.partial").write_text(json.dumps(exports, indent=1, sort_keys=True))
        os.replace(record.with_name(f".{record.name}.partial"), record)
    return rows


def rewrite_exports(*, sources: BiSources, home: Path) -> tuple[list[Path], list[tuple[Path, str]]]:
    """Every export recorded for `home` that still exists, written again from the serving database
    (after an erasure). One that cannot be written again is removed, never left naming someone:
    those come back as (path, what happened)."""
    written: list[Path] = []
    failed: list[tuple[Path, str]] = []
    for path, (view, fmt) in _recorded(home).items():
        out = Path(path)
        if not out.is_file():
            continue
        try:
            export_view(sources=sources, view=view, fmt=fmt, out=out)
            written.append(out)
        except (BiError, OSError, pa.ArrowException) as exc:
            try:
                out.unlink()
                failed.append((out, f"removed, as it could not be written again: {exc}"))
            except OSError as gone:
                failed.append(
                    (
                        out,
                        f"could not be written again ({exc}) nor removed ({gone.strerror}): "
                        "it may still name the person, remove it by hand",
                    )
                )
    return written, failed


def _record_key(path: Path, home: Path) -> str:
    """Inside the home, the path from the home (the record follows a moved home); else absolute."""
    path, home = path.absolute(), home.absolute()
    return path.relative_to(home).as_posix() if path.is_relative_to(home) else str(path)


def _recorded(home: Path) -> dict[str, tuple[str, Format]]:
    """The exports recorded for `home`, by absolute path: (view, format) of each."""
    try:
        exports = json.loads((home / EXPORTS_RECORD).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(exports, dict):
        return {}
    return {
        str((home / str(path)).absolute()): (str(was[0]), "parquet" if was[1] == "parquet" else "csv")
        for path, was in exports.items()
        if isinstance(was, list) and len(was) == 2
    }


def _write(*, reader: pa.RecordBatchReader, fmt: Format, path: Path) -> int:
    rows = 0
    writer_type = pa_parquet.ParquetWriter if fmt == "parquet" else pa_csv.CSVWriter
    with writer_type(str(path), reader.schema) as writer:
        for batch in reader:
            writer.write_batch(batch)
            rows += batch.num_rows
    return rows
