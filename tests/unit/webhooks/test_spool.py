"""Segment files read back exactly what was written, wait on a torn tail, and name real damage."""

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pipelines.webhooks.errors import SpoolCorrupt
from pipelines.webhooks.segments import SpoolRecord, encode_record, read_segment

_ids = st.text(min_size=1, max_size=40)
_records = st.builds(
    SpoolRecord,
    delivery_id=_ids,
    event=st.sampled_from(["push", "issues", "pull_request"]),
    received_at=st.just("2026-11-22T10:00:00+00:00"),
    payload=st.binary(max_size=300),
)


def _write(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(records=st.lists(_records, max_size=8))
def test_records_round_trip_with_offsets(tmp_path, records):
    blobs = [encode_record(r) for r in records]
    segment = _write(tmp_path / "a.seg", b"".join(blobs))
    read = list(read_segment(segment))
    assert [s.record for s in read] == records
    ends = [sum(len(b) for b in blobs[: i + 1]) for i in range(len(blobs))]
    assert [s.end_offset for s in read] == ends


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(records=st.lists(_records, min_size=1, max_size=5), data=st.data())
def test_torn_last_record_is_not_read_until_complete(tmp_path, records, data):
    blobs = [encode_record(r) for r in records]
    whole = b"".join(blobs)
    cut = data.draw(st.integers(len(whole) - len(blobs[-1]), len(whole) - 1))
    segment = _write(tmp_path / "b.seg", whole[:cut])
    assert [s.record for s in read_segment(segment)] == records[:-1]
    _write(segment, whole)
    assert [s.record for s in read_segment(segment)] == records


def test_reading_resumes_from_an_offset(tmp_path):
    first = SpoolRecord(delivery_id="1", event="push", received_at="t", payload=b"{}")
    second = SpoolRecord(delivery_id="2", event="push", received_at="t", payload=b"{}")
    segment = _write(tmp_path / "c.seg", encode_record(first) + encode_record(second))
    offset = len(encode_record(first))
    assert [s.record for s in read_segment(segment, offset=offset)] == [second]


def test_zero_filled_tail_after_a_crash_is_a_torn_tail(tmp_path):
    record = SpoolRecord(delivery_id="1", event="push", received_at="t", payload=b"{}")
    segment = _write(tmp_path / "d.seg", encode_record(record) + bytes(4096))
    assert [s.record for s in read_segment(segment)] == [record]


def test_checksum_damage_before_the_tail_is_reported_with_segment_and_offset(tmp_path):
    blob = encode_record(SpoolRecord(delivery_id="1", event="push", received_at="t", payload=b'{"a": 1}'))
    damaged = blob[:-2] + b"X" + blob[-1:]
    segment = _write(tmp_path / "e.seg", blob + damaged + blob)
    with pytest.raises(SpoolCorrupt, match=r"e\.seg at byte \d+: checksum mismatch") as caught:
        list(read_segment(segment))
    assert caught.value.offset == len(blob)


def test_garbage_header_before_more_data_is_reported(tmp_path):
    blob = encode_record(SpoolRecord(delivery_id="1", event="push", received_at="t", payload=b"{}"))
    segment = _write(tmp_path / "f.seg", blob + b"garbage-garbage" + blob)
    with pytest.raises(SpoolCorrupt, match="bad record header"):
        list(read_segment(segment))


def test_each_record_knows_where_it_starts(tmp_path):
    records = [SpoolRecord(delivery_id=str(i), event="push", received_at="t", payload=b"{}") for i in range(3)]
    segment = _write(tmp_path / "g.seg", b"".join(encode_record(r) for r in records))
    read = list(read_segment(segment))
    assert [s.offset for s in read] == [0] + [s.end_offset for s in read[:-1]]
