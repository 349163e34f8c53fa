"""`metrics-etl forget` on the archive files no `raw.report_files` row names (docs/privacy.md).

The erasure of the archive is led by the rows (`warehouse.erasure.archive_files`); a file no row
names (one a run killed between its landing's commit and the removal of the file it replaced
left, or a fetch a restored warehouse does not know) would be missed. Each is written again
without the person, in place of itself, and never removed: after a restored backup it may be
the only copy of a day. A crash between the new file's rename and the old one's removal leaves
both; running `forget` again writes the old one again under the same name and removes it.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import duckdb

from pipelines.ingest.archive_files import unrecorded_files
from pipelines.ingest.rewrite import rewrite_lines

__all__ = ["erase_from_unrecorded"]


def erase_from_unrecorded(
    conn: duckdb.DuckDBPyConnection, edit: Callable[[bytes], bytes | None], *, raw_dir: Path
) -> tuple[int, int]:
    """Every archive file under `raw_dir` no row names, written again as `edit` gives each line
    back; (lines removed, files written again)."""
    lines = files = 0
    for path in unrecorded_files(conn, raw_dir):
        done = rewrite_lines(path, edit)
        if done is None:
            continue
        if done.path != path:
            path.unlink(missing_ok=True)
        lines, files = lines + done.lines_removed, files + 1
    return lines, files
