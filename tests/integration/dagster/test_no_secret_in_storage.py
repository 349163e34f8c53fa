"""A run with a token set leaves no trace of the token in Dagster's storage.

Dagster keeps job snapshots (resource configuration included) zlib-compressed in its sqlite
databases, so every cell of every table is searched, decompressed where it is a blob.
"""

import sqlite3
import zlib
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import dagster as dg

from pipelines.config import Settings
from pipelines.definitions import build_definitions
from pipelines.defs.snapshots.days import add_snapshot_day


def _texts(home: Path) -> Iterator[bytes]:
    """Every file's bytes, and every sqlite cell under `home`, decompressed where it is zlib."""
    for path in home.rglob("*"):
        if not path.is_file():
            continue
        content = path.read_bytes()
        yield content
        if not content.startswith(b"SQLite format 3"):
            continue
        with sqlite3.connect(path) as db:
            tables = [name for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
            for table in tables:
                for row in db.execute(f'SELECT * FROM "{table}"'):  # names from sqlite's own catalog
                    for cell in row:
                        if isinstance(cell, str):
                            yield cell.encode()
                        elif isinstance(cell, bytes):
                            yield cell
                            yield _inflated(cell)


def _inflated(blob: bytes) -> bytes:
    try:
        return zlib.decompress(blob)
    except zlib.error:
        return b""


def test_a_materialization_stores_the_token_by_name_never_by_value(emulator, pipeline_env, tmp_path):
    home = tmp_path / "dagster_home"
    home.mkdir()
    today = datetime.now(UTC).date()
    with dg.instance_for_test(temp_dir=str(home)) as instance:
        job = build_definitions(Settings.from_env()).resolve_job_def("snapshots_job")
        add_snapshot_day(instance, today)
        assert job.execute_in_process(instance=instance, partition_key=today.isoformat()).success

    texts = list(_texts(home))
    # The search sees into the compressed snapshots: the base URL, a plain setting, is there.
    assert any(pipeline_env["SERVICE_BASE_URL"].encode() in text for text in texts)
    assert any(b"SERVICE_TOKEN" in text for text in texts)
    assert not any(pipeline_env["SERVICE_TOKEN"].encode() in text for text in texts)
