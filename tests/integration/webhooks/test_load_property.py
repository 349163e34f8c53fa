"""Whatever the segments, redeliveries, batch sizes and interrupted calls: each delivery once."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import duckdb
from hypothesis import given, settings
from hypothesis import strategies as st

from pipelines._paths import SQL_DIR
from pipelines.webhooks.load import load_spool
from pipelines.webhooks.segments import SpoolRecord, encode_record

# Only the events migrations (040-049) and the lake's change marks the loader writes: the full
# migrate() per example would dominate the run time.
_EVENTS_SCHEMA = "\n".join(
    ["CREATE SCHEMA meta;", (SQL_DIR / "schema" / "029_create_meta_lake_changes.sql").read_text()]
    + [p.read_text() for p in sorted((SQL_DIR / "schema").glob("04[0-9]_*.sql"))]
)

_segments = st.lists(st.lists(st.integers(0, 30), max_size=12), min_size=1, max_size=4)


def _record(number: int) -> SpoolRecord:
    payload = {"action": "opened", "repository": {"full_name": f"acme/r{number % 4}"}}
    return SpoolRecord(
        delivery_id=f"d-{number}",
        event="issues",
        received_at="2026-11-22T10:00:00+00:00",
        payload=json.dumps(payload).encode(),
    )


@settings(max_examples=25, deadline=None)
@given(segments=_segments, batch_size=st.integers(1, 7), ticks=st.lists(st.integers(1, 3), max_size=6))
def test_each_delivery_lands_once_however_loading_is_sliced(segments, batch_size, ticks):
    with tempfile.TemporaryDirectory() as tmp:
        spool_dir = Path(tmp) / "spool"
        spool_dir.mkdir()
        for index, numbers in enumerate(segments):
            (spool_dir / f"{index:04d}.seg").write_bytes(b"".join(encode_record(_record(n)) for n in numbers))
        conn = duckdb.connect()
        conn.execute(_EVENTS_SCHEMA)
        results = [load_spool(conn, spool_dir, batch_size=batch_size, max_batches=t) for t in ticks]
        results.append(load_spool(conn, spool_dir, batch_size=batch_size))
        stored = [r[0] for r in conn.execute("SELECT delivery_id FROM events.webhook_deliveries").fetchall()]
        conn.close()
    every = [n for numbers in segments for n in numbers]
    assert sorted(stored) == sorted({f"d-{n}" for n in every})
    assert sum(r.loaded for r in results) == len(set(every))
    assert sum(r.loaded + r.duplicates for r in results) == len(every)
    assert set().union(*(r.repositories for r in results)) == {f"acme/r{n % 4}" for n in every}
