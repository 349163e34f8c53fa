"""A consistent copy of the warehouse while nothing writes it.

The copy is taken holding the writer's lock (a run in progress is waited for, as a run waits
for another), after a CHECKPOINT, so the file is whole on its own: no write-ahead log beside it.
It is written under a temporary name and renamed, so a backup directory never holds half a copy.
"""

from __future__ import annotations

import os
import shutil
from datetime import UTC, datetime
from pathlib import Path

from pipelines.warehouse.lock import connect_for_writing

__all__ = ["back_up"]


def back_up(warehouse: Path, *, into: Path, wait: float) -> Path:
    """Copy `warehouse` into the directory `into` as `warehouse-<UTC stamp>.duckdb`; its path."""
    if not warehouse.is_file():
        raise FileNotFoundError(f"{warehouse} does not exist: nothing landed yet")
    into.mkdir(parents=True, exist_ok=True)
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    target = into / f"{warehouse.stem}-{stamp}.duckdb"
    partial = target.with_name(f".{target.name}.partial")
    conn = connect_for_writing(warehouse, config={}, wait=wait)
    try:
        conn.execute("CHECKPOINT")
        shutil.copyfile(warehouse, partial)
        with partial.open("rb") as handle:
            os.fsync(handle.fileno())
        partial.replace(target)
    finally:
        conn.close()
        partial.unlink(missing_ok=True)
    return target
