"""`metrics-etl webhooks serve` over loopback, given a signed delivery nested 5,000 levels deep:
400 with a one-line reason, its delivery line, no traceback in the output, and the receiver
goes on accepting."""

from __future__ import annotations

import httpx

from pipelines.webhooks.segments import read_segment, segments
from pipelines.webhooks.verify import sign

from .receiver import SECRET, serving, signed_delivery


def test_a_signed_delivery_nested_5000_levels_is_refused_400_without_a_traceback(tmp_path):
    # Spelled out: json.dumps would itself recurse past the interpreter's limit.
    body = b'{"repository": {"full_name": "acme/widgets"}, "x": ' + b'{"x": ' * 4999 + b"{}" + b"}" * 5000
    headers = {
        "content-type": "application/json",
        "x-service-event": "issues",
        "x-service-delivery": "deep-1",
        "x-hub-signature-256": sign(secret=SECRET.encode(), body=body),
    }
    with serving(tmp_path) as receiver:
        refused = httpx.post(f"{receiver.url}/webhooks", content=body, headers=headers, timeout=30)
        after, after_headers = signed_delivery("after-deep")
        accepted = httpx.post(f"{receiver.url}/webhooks", content=after, headers=after_headers, timeout=30)

    assert (refused.status_code, refused.json()) == (400, {"message": "payload is nested too deeply"})
    assert accepted.status_code == 200
    (line,) = [line for line in receiver.output.splitlines() if " delivery id=deep-1 " in line]
    assert f"outcome=bad_request status=400 bytes={len(body)} " in line
    assert "Traceback" not in receiver.output and "RecursionError" not in receiver.output
    assert [s.record.delivery_id for seg in segments(tmp_path / "spool") for s in read_segment(seg)] == ["after-deep"]
