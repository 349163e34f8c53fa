"""Spool → warehouse exactly once: batches, redeliveries, torn tails and crashes mid-load."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import duckdb
import httpx
import pytest

from pipelines.warehouse.erasure import Forgotten, Person, person_hashes
from pipelines.webhooks import load
from pipelines.webhooks.app import ReceiverConfig, running_receiver
from pipelines.webhooks.load import load_spool, prune_spool
from pipelines.webhooks.segments import SpoolRecord, encode_record, segments
from tests.integration.webhooks._payloads import push_payload

from .conftest import SECRET, apply_events_schema, deliver

REPO_ROOT = Path(__file__).resolve().parents[3]


def _record(i: int, repo: str = "acme/widgets") -> SpoolRecord:
    payload = {"action": "opened", "issue": {"number": i}, "repository": {"full_name": repo}}
    return SpoolRecord(
        delivery_id=f"d-{i}",
        event="issues",
        received_at="2026-11-22T10:00:00+00:00",
        payload=json.dumps(payload).encode(),
    )


def _payload(action: str) -> dict:
    return {"action": action, "repository": {"full_name": "acme/widgets"}}


def _write_segment(spool_dir: Path, name: str, records: list[SpoolRecord], tail: bytes = b"") -> Path:
    spool_dir.mkdir(parents=True, exist_ok=True)
    path = spool_dir / f"{name}.seg"
    path.write_bytes(b"".join(encode_record(r) for r in records) + tail)
    return path


def _ids(conn: duckdb.DuckDBPyConnection) -> list[str]:
    return [
        r[0] for r in conn.execute("SELECT delivery_id FROM events.webhook_deliveries ORDER BY delivery_id").fetchall()
    ]


def test_batches_load_every_record_once_and_name_repositories(spool_dir, warehouse):
    _write_segment(spool_dir, "0001", [_record(i, f"acme/r{i % 3}") for i in range(25)])
    result = load_spool(warehouse, spool_dir, batch_size=7)
    assert (result.loaded, result.duplicates) == (25, 0)
    assert result.repositories == {"acme/r0", "acme/r1", "acme/r2"}
    assert _ids(warehouse) == sorted(f"d-{i}" for i in range(25))
    again = load_spool(warehouse, spool_dir, batch_size=7)
    assert (again.loaded, again.duplicates, again.repositories) == (0, 0, frozenset())


def test_max_batches_bounds_one_call_and_the_next_resumes(spool_dir, warehouse):
    _write_segment(spool_dir, "0001", [_record(i) for i in range(10)])
    assert load_spool(warehouse, spool_dir, batch_size=3, max_batches=2).loaded == 6
    assert load_spool(warehouse, spool_dir, batch_size=3).loaded == 4
    assert len(_ids(warehouse)) == 10


def test_redelivery_in_two_segments_is_one_row(spool_dir, warehouse):
    _write_segment(spool_dir, "0001", [_record(1), _record(2)])
    _write_segment(spool_dir, "0002", [_record(2), _record(3), _record(3)])
    result = load_spool(warehouse, spool_dir, batch_size=100)
    assert (result.loaded, result.duplicates) == (3, 2)
    assert _ids(warehouse) == ["d-1", "d-2", "d-3"]


def test_torn_tail_waits_until_the_record_is_complete(spool_dir, warehouse):
    whole = encode_record(_record(2))
    segment = _write_segment(spool_dir, "0001", [_record(1)], tail=whole[:-5])
    assert load_spool(warehouse, spool_dir, batch_size=10).loaded == 1
    with segment.open("ab") as f:
        f.write(whole[-5:])
    assert load_spool(warehouse, spool_dir, batch_size=10).loaded == 1
    assert _ids(warehouse) == ["d-1", "d-2"]


def test_a_failure_no_delivery_causes_rolls_back_rows_and_offset_together(spool_dir, warehouse):
    # The position cannot be written (as on a broken warehouse): not a delivery's fault, so
    # nothing is split or set aside, and the rows go with the offset.
    warehouse.execute("DROP TABLE events.spool_offsets")
    warehouse.execute(
        'CREATE TABLE events.spool_offsets (segment VARCHAR PRIMARY KEY, "offset" BIGINT NOT NULL CHECK ("offset" < 0),'
        " updated_at TIMESTAMPTZ NOT NULL)"
    )
    _write_segment(spool_dir, "0001", [_record(1), _record(2), _record(3)])
    changes = warehouse.execute("SELECT * FROM meta.lake_changes").fetchall()
    with pytest.raises(duckdb.ConstraintException):
        load_spool(warehouse, spool_dir, batch_size=3)
    assert _ids(warehouse) == []
    assert warehouse.execute("SELECT count(*) FROM events.webhook_quarantine").fetchone() == (0,)
    assert warehouse.execute("SELECT * FROM meta.lake_changes").fetchall() == changes


def test_poisoned_delivery_does_not_block_the_rest(spool_dir, warehouse):
    # A record no batch can insert (its received_at is no time): its batch is split until it
    # fails alone, is set aside with the error, and its position is passed.
    poison = SpoolRecord(
        delivery_id="poison", event="issues", received_at="not a time", payload=json.dumps(_payload("opened")).encode()
    )
    before, after = [_record(i) for i in range(6)], [_record(i) for i in range(6, 12)]
    segment = _write_segment(spool_dir, "0001", [*before, poison, *after])
    result = load_spool(warehouse, spool_dir, batch_size=100)
    assert (result.loaded, result.quarantined, result.duplicates) == (12, 1, 0)
    assert _ids(warehouse) == sorted(r.delivery_id for r in before + after)
    ((delivery_id, offset, reason, payload),) = warehouse.execute(
        "SELECT delivery_id, spool_offset, reason, payload_text FROM events.webhook_quarantine"
    ).fetchall()
    assert (delivery_id, offset) == ("poison", sum(len(encode_record(r)) for r in before))
    assert reason.startswith("failed to load even alone: ConversionException: ") and "not a time" in reason
    assert payload == poison.payload.decode()
    # Later loads move on: the poison is not tried again, what follows it loads.
    with segment.open("ab") as f:
        f.write(encode_record(_record(12)))
    again = load_spool(warehouse, spool_dir, batch_size=100)
    assert (again.loaded, again.quarantined, again.duplicates) == (1, 0, 0)
    offsets = dict(warehouse.execute('SELECT segment, "offset" FROM events.spool_offsets').fetchall())
    assert offsets == {"0001.seg": segment.stat().st_size}


def _pushes(prefix: str, count: int, payload: bytes) -> list[SpoolRecord]:
    return [
        SpoolRecord(delivery_id=f"{prefix}-{i}", event="push", received_at="2026-11-22T10:00:00+00:00", payload=payload)
        for i in range(count)
    ]


def test_batches_are_bounded_by_bytes_and_a_larger_delivery_goes_alone(spool_dir, warehouse):
    small = push_payload(50_000)
    per_batch = load._MAX_BATCH_BYTES // len(small)
    large = push_payload(load._MAX_BATCH_BYTES + 1)
    _write_segment(
        spool_dir, "0001", [*_pushes("a", per_batch + 1, small), *_pushes("big", 1, large), *_pushes("b", 2, small)]
    )
    assert [load_spool(warehouse, spool_dir, max_batches=1).loaded for _ in range(4)] == [per_batch, 1, 1, 2]


def test_a_delivery_too_large_for_the_loaders_memory_is_set_aside_and_the_rest_load(spool_dir, warehouse, monkeypatch):
    # The loader's bound made small, so that a 12 MB delivery does not fit in it as a 25 MB one
    # of the worst shape does not fit in the real one.
    monkeypatch.setattr(load, "LOAD_MEMORY_LIMIT", "64MB")
    large = push_payload(12_000_000)
    small = push_payload(50_000)
    records = [*_pushes("a", 5, small), *_pushes("big", 1, large), *_pushes("b", 5, small)]
    segment = _write_segment(spool_dir, "0001", records)
    result = load_spool(warehouse, spool_dir)
    assert (result.loaded, result.quarantined) == (10, 1)
    ((delivery_id, reason, payload_length),) = warehouse.execute(
        "SELECT delivery_id, reason, length(payload_text) FROM events.webhook_quarantine"
    ).fetchall()
    assert (delivery_id, payload_length) == ("big-0", len(large))
    assert reason.startswith("failed to load even alone: OutOfMemoryException: Out of Memory Error")
    offsets = dict(warehouse.execute('SELECT segment, "offset" FROM events.spool_offsets').fetchall())
    assert offsets == {"0001.seg": segment.stat().st_size}


def test_a_small_delivery_out_of_memory_fails_the_load_instead_of_being_set_aside(spool_dir, warehouse, monkeypatch):
    # Whatever its shape, a delivery within a batch's bytes fits the real bound: failing alone
    # says the process is short of memory, and setting every delivery aside would be wrong.
    monkeypatch.setattr(load, "LOAD_MEMORY_LIMIT", "4MB")
    _write_segment(spool_dir, "0001", _pushes("a", 20, push_payload(50_000)))
    with pytest.raises(duckdb.OutOfMemoryException):
        load_spool(warehouse, spool_dir)
    monkeypatch.undo()
    for table in ("webhook_deliveries", "webhook_quarantine", "spool_offsets"):
        assert warehouse.execute(f"SELECT count(*) FROM events.{table}").fetchone() == (0,), table
    assert load_spool(warehouse, spool_dir).loaded == 20


def test_rows_loaded_but_offset_lost_are_not_loaded_twice(spool_dir, warehouse):
    _write_segment(spool_dir, "0001", [_record(i) for i in range(5)])
    load_spool(warehouse, spool_dir, batch_size=2)
    # As if an acknowledgement kept outside the transaction had been lost in a crash.
    warehouse.execute("DELETE FROM events.spool_offsets")
    result = load_spool(warehouse, spool_dir, batch_size=2)
    assert (result.loaded, result.duplicates) == (0, 5)
    assert len(_ids(warehouse)) == 5


_LOADER = """
import sys
from pathlib import Path
import duckdb
from pipelines.webhooks.load import load_spool

conn = duckdb.connect(sys.argv[1])
while True:
    result = load_spool(conn, Path(sys.argv[2]), batch_size=5, max_batches=1)
    print(result.loaded, flush=True)
    if result.loaded == 0:
        break
"""


def test_loader_killed_mid_load_then_rerun_loads_each_delivery_once(tmp_path, spool_dir):
    records = [_record(i) for i in range(400)]
    _write_segment(spool_dir, "0001", records[:250])
    _write_segment(spool_dir, "0002", records[200:])  # 50 redeliveries across segments
    db = tmp_path / "crash.duckdb"
    with duckdb.connect(str(db)) as conn:
        apply_events_schema(conn)
    child = subprocess.Popen(
        [sys.executable, "-c", _LOADER, str(db), str(spool_dir)],
        cwd=REPO_ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        progress = [child.stdout.readline() for _ in range(3)]
        assert all(line.strip() for line in progress)
        os.kill(child.pid, signal.SIGKILL)
    finally:
        child.wait()
        child.stdout.close()
    assert child.returncode == -signal.SIGKILL
    with duckdb.connect(str(db)) as conn:
        partial = conn.execute("SELECT count(*) FROM events.webhook_deliveries").fetchone()[0]
        assert 15 <= partial < 400
        result = load_spool(conn, spool_dir, batch_size=50)
        assert result.loaded == 400 - partial
        assert _ids(conn) == sorted(r.delivery_id for r in records)
        offsets = dict(conn.execute('SELECT segment, "offset" FROM events.spool_offsets').fetchall())
    assert offsets == {p.name: p.stat().st_size for p in segments(spool_dir)}


def test_prune_keeps_a_live_segment_and_removes_it_once_its_writer_is_gone(spool_dir, warehouse):
    config = ReceiverConfig(secret=SECRET, spool_dir=spool_dir)
    with running_receiver(config=config) as url, httpx.Client(base_url=url) as client:
        assert deliver(client, _payload("opened"), delivery_id="live-1").status_code == 200
        assert load_spool(warehouse, spool_dir, batch_size=10).loaded == 1
        assert prune_spool(warehouse, spool_dir) == []
        assert deliver(client, _payload("closed"), delivery_id="live-2").status_code == 200
    # Written after the last load: the writer is gone but one record is not loaded yet.
    assert prune_spool(warehouse, spool_dir) == []
    assert load_spool(warehouse, spool_dir, batch_size=10).loaded == 1
    (segment,) = segments(spool_dir)
    assert prune_spool(warehouse, spool_dir) == [segment.name]
    assert segments(spool_dir) == []
    assert warehouse.execute("SELECT count(*) FROM events.spool_offsets").fetchone() == (0,)
    assert _ids(warehouse) == ["live-1", "live-2"]


def test_prune_removes_a_crashed_writers_torn_tail_after_loading_the_rest(spool_dir, warehouse):
    _write_segment(spool_dir, "0001", [_record(1)], tail=encode_record(_record(2))[:-3])
    damaged = _write_segment(spool_dir, "0002", [_record(3), _record(4)])
    damaged.write_bytes(damaged.read_bytes()[:-1])
    assert load_spool(warehouse, spool_dir, batch_size=10).loaded == 2
    assert sorted(prune_spool(warehouse, spool_dir)) == ["0001.seg", "0002.seg"]
    assert _ids(warehouse) == ["d-1", "d-3"]


def test_a_payload_the_warehouse_cannot_parse_is_quarantined_not_blocking(spool_dir, warehouse):
    # Python's parser (the receiver's) accepts a lone surrogate escape; DuckDB's JSON does not.
    odd = SpoolRecord(
        delivery_id="odd", event="issues", received_at="2026-11-22T10:00:00+00:00", payload=b'{"title": "\\ud800"}'
    )
    _write_segment(spool_dir, "0001", [_record(1), odd, _record(2), odd])
    result = load_spool(warehouse, spool_dir, batch_size=10)
    assert (result.loaded, result.quarantined, result.duplicates) == (2, 1, 1)
    assert _ids(warehouse) == ["d-1", "d-2"]
    row = warehouse.execute(
        "SELECT delivery_id, segment, spool_offset, payload_text FROM events.webhook_quarantine"
    ).fetchone()
    assert row == ("odd", "0001.seg", len(encode_record(_record(1))), '{"title": "\\ud800"}')


def test_a_repository_event_without_a_repository_is_quarantined_with_its_reason(spool_dir, warehouse):
    bare = SpoolRecord(
        delivery_id="bare",
        event="issues",
        received_at="2026-11-22T10:00:00+00:00",
        payload=b'{"action": "opened", "issue": {"number": 9}}',
    )
    _write_segment(spool_dir, "0001", [_record(1), bare, _record(2)])
    result = load_spool(warehouse, spool_dir, batch_size=10)
    assert (result.loaded, result.quarantined, sorted(result.delivery_ids)) == (2, 1, ["d-1", "d-2"])
    assert _ids(warehouse) == ["d-1", "d-2"]
    assert warehouse.execute("SELECT delivery_id, reason FROM events.webhook_quarantine").fetchall() == [
        ("bare", "issues delivery has no repository.full_name")
    ]


def test_deliveries_naming_an_erased_person_are_passed_and_the_spool_keeps_nothing_of_them(spool_dir, warehouse):
    key = b"a key"
    forgotten = Forgotten(key, frozenset(person_hashes(key, Person(1000014, "dev-00014"))))

    def sent_by(i: int, login: str, user_id: int) -> SpoolRecord:
        payload = {"action": "opened", "sender": {"login": login, "id": user_id}, "repository": {"full_name": "a/r"}}
        return SpoolRecord(f"d-{i}", "issues", "2026-11-22T10:00:00+00:00", json.dumps(payload).encode())

    # The erased person's deliveries in the middle of a batch and at its end, where the position lands.
    records = [
        sent_by(1, "dev-00001", 1000001),
        sent_by(2, "DEV-00014", 9),
        sent_by(3, "someone", 1000014),
        sent_by(4, "dev-00002", 1000002),
        sent_by(5, "dev-00014", 1000014),
    ]
    _write_segment(spool_dir, "0001", records)
    result = load_spool(warehouse, spool_dir, batch_size=3, forgotten=forgotten)
    assert (result.loaded, result.erased, result.duplicates, result.quarantined) == (2, 3, 0, 0)
    assert _ids(warehouse) == ["d-1", "d-4"]
    assert warehouse.execute("SELECT count(*) FROM events.webhook_quarantine").fetchone() == (0,)
    # Passed, not pending: the segment is fully loaded, so it goes, and a reload finds nothing.
    assert prune_spool(warehouse, spool_dir) == ["0001.seg"]
    assert segments(spool_dir) == []
    assert load_spool(warehouse, spool_dir, forgotten=forgotten).loaded == 0


def test_other_peoples_deliveries_land_whatever_ids_they_share_with_an_erased_person(spool_dir, warehouse, client):
    """Issue 42, break 2: a push to a repository whose id is the erased user's id, and an issue of that
    id, both sent by someone else, land (and every later delivery for that repository), through the
    real receiver; a mention of the erased person in another's text lands as a placeholder."""
    key = b"a key"
    forgotten = Forgotten(key, frozenset(person_hashes(key, Person(1000043, "dev-00018"))))
    other = {"login": "dev-00002", "id": 1000002, "type": "User"}
    erased = {"login": "dev-00018", "id": 1000043, "type": "User"}
    owner = {"login": "acme", "id": 1000043, "type": "Organization"}
    repository = {"id": 1000043, "full_name": "acme/r", "owner": owner}
    pusher = {"name": "dev-00002"}
    sent = [
        ("push", {"ref": "refs/heads/main", "repository": repository, "pusher": pusher, "sender": other}),
        (
            "issues",
            {
                "action": "opened",
                "issue": {
                    "id": 1000043,
                    "number": 1000043,
                    "title": "as discussed with @Dev-00018, and @dev-000180",
                    "user": other,
                },
                "repository": repository,
                "sender": other,
            },
        ),
        (
            "issues",
            {
                "action": "opened",
                "issue": {"id": 3, "number": 3, "user": erased},
                "repository": repository,
                "sender": erased,
            },
        ),
        ("push", {"ref": "refs/heads/x", "repository": repository, "pusher": pusher, "sender": other}),
    ]
    for i, (event, payload) in enumerate(sent):
        assert deliver(client, payload, delivery_id=f"d-{i}", event=event).status_code == 200
    result = load_spool(warehouse, spool_dir, forgotten=forgotten)
    assert (result.loaded, result.erased, result.quarantined) == (3, 1, 0)
    assert _ids(warehouse) == ["d-0", "d-1", "d-3"]
    title = warehouse.execute(
        "SELECT payload->>'$.issue.title' FROM events.webhook_deliveries WHERE delivery_id = 'd-1'"
    ).fetchone()[0]
    assert title == "as discussed with @[erased], and @dev-000180"
