"""A payload repeating a key, spooled before the receiver refused such payloads, is read one way
everywhere: the loader sets it aside with the receiver's own reason and lands no reading of it."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import duckdb
import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pipelines.webhooks.app import ReceiverConfig, running_receiver
from pipelines.webhooks.load import load_spool
from pipelines.webhooks.payload import PAYLOAD_RULES
from pipelines.webhooks.segments import SpoolRecord, encode_record, read_segment, segments

from .conftest import SECRET, apply_events_schema, deliver

_AT = "2026-11-22T10:00:00+00:00"


def _ok(i: int) -> SpoolRecord:
    payload = {"action": "opened", "issue": {"number": i}, "repository": {"full_name": "acme/widgets"}}
    return SpoolRecord(f"d-{i}", "issues", _AT, json.dumps(payload).encode())


# Where the repeated key sits: the top object, a person object, an object inside an array.
_TEMPLATES = [
    '{"action": %s, "action": %s, "repository": {"full_name": "acme/widgets"}}',
    '{"action": "opened", "repository": {"full_name": "acme/widgets"}, "sender": {"login": %s, "login": %s}}',
    '{"action": "opened", "repository": {"full_name": "acme/widgets"}, "commits": [{}, {"id": %s, "id": %s}]}',
    '{"repository": {"full_name": "acme/a", "full_name": %s}, "action": %s}',
]


@pytest.fixture(scope="module")
def receiver(tmp_path_factory: pytest.TempPathFactory) -> Iterator[httpx.Client]:
    """The receiver, whose answer to a body is the reason the loader must give."""
    config = ReceiverConfig(secret=SECRET, spool_dir=tmp_path_factory.mktemp("live-spool"), max_body_bytes=64 * 1024)
    with running_receiver(config=config) as url, httpx.Client(base_url=url) as client:
        yield client


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    template=st.sampled_from(_TEMPLATES),
    first=st.text(max_size=8).map(json.dumps),
    second=st.text(max_size=8).map(json.dumps),
    before=st.integers(0, 3),
)
def test_an_old_segments_payload_repeating_a_key_is_quarantined_with_the_receivers_reason(
    tmp_path: Path, receiver: httpx.Client, template: str, first: str, second: str, before: int
) -> None:
    body = (template % (first, second)).encode()
    refused = deliver(receiver, body, delivery_id="live-dup")
    assert refused.status_code == 400
    reason = refused.json()["message"]

    spool = tmp_path / "spool"
    shutil.rmtree(spool, ignore_errors=True)
    # An old segment: the duplicate among deliveries that land, in the middle of one batch.
    records = [_ok(i) for i in range(before)] + [SpoolRecord("dup", "issues", _AT, body)] + [_ok(9)]
    spool.mkdir(parents=True)
    (spool / "0001.seg").write_bytes(b"".join(encode_record(r) for r in records))
    path = tmp_path / "warehouse.duckdb"
    path.unlink(missing_ok=True)
    with duckdb.connect(str(path)) as warehouse:
        apply_events_schema(warehouse)
        result = load_spool(warehouse, spool, batch_size=10)
        assert (result.loaded, result.quarantined) == (before + 1, 1)
        landed = warehouse.execute("SELECT delivery_id FROM events.webhook_deliveries WHERE delivery_id = 'dup'")
        assert landed.fetchall() == []
        # Kept as it was sent, both values of the key, never one reading of it.
        assert warehouse.execute(
            "SELECT reason, payload_text FROM events.webhook_quarantine WHERE delivery_id = 'dup'"
        ).fetchall() == [(reason, body.decode())]
        # Loading again changes nothing: the position moved past it.
        assert load_spool(warehouse, spool, batch_size=10).quarantined == 0


def test_a_repeated_key_alone_in_its_batch_is_quarantined_and_the_next_batch_lands(spool_dir, warehouse):
    body = b'{"action": "opened", "action": "deleted", "repository": {"full_name": "acme/widgets"}}'
    spool_dir.mkdir(parents=True)
    (spool_dir / "0001.seg").write_bytes(
        b"".join(encode_record(r) for r in [_ok(1), SpoolRecord("dup", "issues", _AT, body), _ok(2)])
    )
    result = load_spool(warehouse, spool_dir, batch_size=1)
    assert (result.loaded, result.quarantined) == (2, 1)
    assert warehouse.execute("SELECT reason FROM events.webhook_quarantine").fetchall() == [
        ('duplicate key "action" at $: send each key once',)
    ]


def test_what_the_receiver_spools_is_marked_checked_and_lands_without_being_parsed_again(client, spool_dir, warehouse):
    assert deliver(client, _ok(1).payload, delivery_id="live").status_code == 200
    (segment,) = segments(spool_dir)
    (spooled,) = read_segment(segment)
    assert spooled.record.rules == PAYLOAD_RULES  # the loader checks only records without it
    assert load_spool(warehouse, spool_dir).loaded == 1
