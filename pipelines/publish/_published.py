"""What the lake holds against what this warehouse last published into it.

Each publish records every partition file it wrote, with its size and modification time
(meta.lake_files, paths relative to a version of the lake, in the transaction that forgets the
changes it covered); a file it linked from the previous version keeps its record. The next
publish stats the files of the lake's newest version (one stat each: cheap next to a publish)
and compares: a file changed or damaged outside the pipeline, one missing, or one this
warehouse never wrote (the lake was published from another warehouse: a restored backup, a
rebuilt file) has drifted, and is written again from the warehouse into the next version
instead of linked (or left out with the day the warehouse does not have).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import duckdb
import pyarrow as pa

from pipelines.warehouse.sql import rollback, run_sql

if TYPE_CHECKING:
    from pipelines.publish._tables import LakeTable

DATA_FILE = "data.parquet"

FileState = tuple[int, int]  # (size, mtime_ns): what a publish recorded of each file it left


@dataclass
class Written:
    """What a publish did to the partition files of the version it built, to record in meta.lake_files."""

    root: Path  # the version's directory
    files: dict[str, FileState]  # relative path -> state, for every partition file written
    touched: set[str]  # every relative path written or removed

    def wrote(self, path: Path) -> None:
        stat = path.stat()
        relative = path.relative_to(self.root).as_posix()
        self.files[relative] = (stat.st_size, stat.st_mtime_ns)
        self.touched.add(relative)

    def removed(self, path: Path) -> None:
        self.touched.add(path.relative_to(self.root).as_posix())


def _lake_files(lake: Path, tables: list[LakeTable]) -> dict[str, FileState]:
    """Every partition file of a version of the lake (`lake`) with its size and modification time: one stat each."""
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
    """Files of a version of the lake (`lake`) not as the last publish of this warehouse left them:
    changed, damaged, missing, or unknown to it (another warehouse published them: a restored
    backup, a rebuilt file)."""
    published = {path: (size, mtime) for path, size, mtime in run_sql(conn, "warehouse/select_lake_files.sql")}
    on_disk = _lake_files(lake, tables)
    return sorted(path for path in published.keys() | on_disk.keys() if published.get(path) != on_disk.get(path))


def asked(path: str, partitions: dict[str, set[str]]) -> bool:
    """Whether a run marked the file's partition (`partitions`: each table's partition values)."""
    name, partition, _ = path.split("/")
    return partition.split("=", 1)[1] in partitions.get(name, set())


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
