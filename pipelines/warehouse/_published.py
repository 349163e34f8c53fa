"""What the lake holds against what this warehouse last published into it.

Each publish records every partition file it wrote or kept, with its size and modification
time (meta.lake_files, in the transaction that forgets the changes it covered). The next publish
stats the lake's files (one stat each: cheap next to a publish) and compares: a file changed or
damaged outside the pipeline, one missing, or one this warehouse never wrote (the lake was
published from another warehouse: a restored backup, a rebuilt file) has drifted, and is written
again from the warehouse (or removed with the day the warehouse does not have).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING

import duckdb
import pyarrow as pa

from pipelines.warehouse.sql import rollback, run_sql

if TYPE_CHECKING:
    from pipelines.warehouse.lake import LakeTable

DATA_FILE = "data.parquet"

FileState = tuple[int, int]  # (size, mtime_ns): what a publish recorded of each file it left


@dataclass
class Written:
    """What a publish did to the lake's partition files, to record in meta.lake_files."""

    lake: Path
    files: dict[str, FileState]  # relative path -> state, for every partition file written or kept
    touched: set[str]  # every relative path written or removed

    def wrote(self, path: Path) -> None:
        stat = path.stat()
        relative = path.relative_to(self.lake).as_posix()
        self.files[relative] = (stat.st_size, stat.st_mtime_ns)
        self.touched.add(relative)

    def removed(self, path: Path) -> None:
        self.touched.add(path.relative_to(self.lake).as_posix())


def _lake_files(lake: Path, tables: list[LakeTable]) -> dict[str, FileState]:
    """Every partition file of the lake with its size and modification time: one stat each."""
    found: dict[str, FileState] = {}
    for table in tables:
        p = table.partitioning
        if p is None:
            continue  # written whole by every publish
        try:
            partitions = [entry for entry in os.scandir(lake / table.name) if entry.name.startswith(f"{p.column}=")]
        except FileNotFoundError:
            continue
        for entry in partitions:
            try:
                stat = os.stat(os.path.join(entry.path, DATA_FILE))
            except (FileNotFoundError, NotADirectoryError):
                continue
            found[f"{table.name}/{entry.name}/{DATA_FILE}"] = (stat.st_size, stat.st_mtime_ns)
    return found


def drifted_files(conn: duckdb.DuckDBPyConnection, lake: Path, tables: list[LakeTable]) -> list[str]:
    """Lake files not as the last publish of this warehouse left them: changed, damaged, missing,
    or unknown to it (another warehouse published them: a restored backup, a rebuilt file)."""
    published = {path: (size, mtime) for path, size, mtime in run_sql(conn, "warehouse/select_lake_files.sql")}
    on_disk = _lake_files(lake, tables)
    return sorted(path for path in published.keys() | on_disk.keys() if published.get(path) != on_disk.get(path))


def asked(path: str, changes: dict[str, set[date]]) -> bool:
    name, partition, _ = path.split("/")
    return partition.split("=", 1)[1] in {d.isoformat() for d in changes.get(name, set()) if d is not None}


def record(conn: duckdb.DuckDBPyConnection, written: Written, *, whole: bool) -> None:
    """Every partition asked for is written: record the files as left and forget the marks, in
    one transaction (a crash before it leaves both, and the next publish writes them again)."""
    files = pa.table(
        {
            "path": list(written.files),
            "size": [size for size, _ in written.files.values()],
            "mtime_ns": [mtime for _, mtime in written.files.values()],
        },
        schema=pa.schema([("path", pa.string()), ("size", pa.int64()), ("mtime_ns", pa.int64())]),
    )
    conn.register("published_lake_files", files)
    try:
        conn.execute("BEGIN TRANSACTION")
        try:
            run_sql(conn, "warehouse/record_lake_files.sql", whole=whole, paths=sorted(written.touched))
            conn.execute("COMMIT")
        except BaseException:
            rollback(conn)
            raise
    finally:
        conn.unregister("published_lake_files")


def remove_unpublished_files(conn: duckdb.DuckDBPyConnection, lake: Path, tables: list[LakeTable]) -> list[str]:
    """Remove every file under the lake that the newest publish did not leave there (a staging
    file a crash left, a partition of a table no longer published): what an erasure calls after
    publishing, so no superseded copy of a row survives. Their paths, relative to the lake."""
    kept = {path for (path,) in run_sql(conn, "warehouse/select_lake_file_paths.sql")}
    kept |= {f"{table.name}/{DATA_FILE}" for table in tables if table.partitioning is None}
    removed = []
    for path in sorted(lake.rglob("*")):
        relative = path.relative_to(lake).as_posix()
        if path.is_file() and relative not in kept:
            path.unlink()
            removed.append(relative)
    for directory in sorted((p for p in lake.rglob("*") if p.is_dir()), key=lambda p: len(p.parts), reverse=True):
        if not any(directory.iterdir()):
            directory.rmdir()
    return removed
