"""The receiver over real HTTP logs one line per request to POST /webhooks, and never its secrets."""

from __future__ import annotations

import json
import logging
import re
import socket
from urllib.parse import urlsplit

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pipelines.webhooks.app import running_receiver
from pipelines.webhooks.spool import Spool
from pipelines.webhooks.verify import sign

from .conftest import SECRET, deliver

ISSUE = {"action": "opened", "issue": {"number": 7}, "repository": {"full_name": "acme/widgets"}}
_LINE = re.compile(r"delivery id=(\S+) event=(\S+) outcome=(\w+) status=(\d{3}) bytes=(\d+) ms=\d+\.\d")


@pytest.fixture
def lines(caplog: pytest.LogCaptureFixture):
    """The delivery lines logged so far, each as (id, event, outcome, status, bytes)."""
    caplog.set_level(logging.INFO, logger="pipelines.webhooks.deliveries")

    def logged() -> list[tuple[str, ...]]:
        found = []
        for record in caplog.records:
            if record.name == "pipelines.webhooks.deliveries":
                match = _LINE.fullmatch(record.getMessage())
                assert match is not None, record.getMessage()
                found.append(match.groups())
        return found

    return logged


def test_each_delivery_is_one_line_with_its_outcome_status_and_size(client, config, lines):
    body = json.dumps(ISSUE).encode()
    size = str(len(body))
    assert deliver(client, ISSUE, delivery_id="good-1").status_code == 200
    assert deliver(client, ISSUE, delivery_id="good-1").status_code == 200
    assert deliver(client, ISSUE, delivery_id="forged-1", secret=b"wrong").status_code == 401
    assert deliver(client, ISSUE, delivery_id="no-event", event="").status_code == 400
    assert deliver(client, b"[1, 2]", delivery_id="a-list", event="push").status_code == 400
    oversized = json.dumps({"blob": "x" * config.max_body_bytes}).encode()
    assert deliver(client, oversized, delivery_id="too-big").status_code == 413

    assert lines() == [
        ("good-1", "issues", "spooled", "200", size),
        ("good-1", "issues", "duplicate", "200", size),
        ("forged-1", "issues", "bad_signature", "401", size),
        ("no-event", "-", "bad_request", "400", size),
        ("a-list", "push", "bad_request", "400", "6"),
        ("too-big", "issues", "too_large", "413", str(len(oversized))),  # declared, never read
    ]


def test_a_chunked_body_over_the_limit_is_logged_with_the_bytes_read(client, config, lines):
    count = config.max_body_bytes // 8192 + 2

    def chunks():
        for _ in range(count):
            yield b"x" * 8192

    headers = {"x-service-event": "issues", "x-service-delivery": "chunked", "x-hub-signature-256": "sha256=00"}
    assert client.post("/webhooks", content=chunks(), headers=headers).status_code == 413
    ((delivery_id, event, outcome, status, size),) = lines()
    assert (delivery_id, event, outcome, status) == ("chunked", "issues", "too_large", "413")
    # Read until past the limit, in the pieces the server receives (not the sender's chunks).
    assert config.max_body_bytes < int(size) <= count * 8192


def test_a_spool_write_failure_is_logged_as_spool_error_and_its_reason_counted(tmp_path, config, lines, caplog):
    class FullDisk(Spool):
        def _write_durably(self, blob: bytes) -> None:
            raise OSError(28, "No space left on device")

    full = FullDisk(directory=tmp_path / "full")
    with running_receiver(config=config, spool=full) as url, httpx.Client(base_url=url) as client:
        assert deliver(client, ISSUE, delivery_id="lost").status_code == 500
    assert [line[:4] for line in lines()] == [("lost", "issues", "spool_error", "500")]
    counted = [r.getMessage() for r in caplog.records if r.name == "pipelines.webhooks"]
    assert any("not stored (500)" in m and "No space left on device" in m for m in counted)


def test_header_values_are_escaped_and_a_newline_never_reaches_a_line(client, lines, caplog):
    parts = urlsplit(str(client.base_url))
    body = json.dumps(ISSUE).encode()
    head = b"POST /webhooks HTTP/1.1\r\nhost: x\r\nx-service-event: issues\r\ncontent-length: %d\r\n" % len(body)
    signature = b"x-hub-signature-256: " + sign(secret=SECRET, body=body).encode() + b"\r\n"
    for delivery_id in (b"tab\there \xe9", b"split\ndelivery id=forged outcome=spooled"):
        with socket.create_connection((parts.hostname, parts.port), timeout=10) as sock:
            sock.sendall(head + signature + b"x-service-delivery: " + delivery_id + b"\r\n\r\n" + body)
            assert sock.recv(4096).split(b" ")[1] in {b"200", b"400"}
    # httptools refuses a newline in a header before the app sees the request: no line at all.
    assert [line[:3] for line in lines()] == [(r"tab\x09here\x20\xe9", "issues", "spooled")]
    assert all("\n" not in record.getMessage() and "forged" not in record.getMessage() for record in caplog.records)


def test_the_body_signature_and_secret_never_reach_a_line(client, lines, caplog):
    """Whatever is sent, signed or not: one line per request, holding none of what was sent but
    the two header values it names (`caplog` is only read between examples, so it is shared)."""

    @settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(
        marker=st.text("abcdefghijklmnopqrstuvwxyz0123456789", min_size=16, max_size=40),
        signed=st.booleans(),
        # What an HTTP client sends as is (no backslash: the log escapes it).
        delivery_id=st.text(
            st.characters(min_codepoint=0x21, max_codepoint=0x7E, exclude_characters="\\"), min_size=1, max_size=50
        ),
        as_form=st.booleans(),
    )
    def one_delivery(marker: str, signed: bool, delivery_id: str, as_form: bool) -> None:
        caplog.clear()
        document = json.dumps({"action": "opened", "repository": {"full_name": "acme/w"}, "note": marker})
        body = f"payload={document}".encode() if as_form else document.encode()
        signature = sign(secret=SECRET if signed else b"other", body=body)
        headers = {
            "content-type": "application/x-www-form-urlencoded" if as_form else "application/json",
            "x-service-event": "issues",
            "x-service-delivery": delivery_id,
            "x-hub-signature-256": signature,
        }
        client.post("/webhooks", content=body, headers=headers)
        assert len(lines()) == 1
        for record in caplog.records:
            assert "\n" not in record.getMessage()
            # The id is what was sent as the id (and may spell the marker): the rest holds none of it.
            rest = record.getMessage().replace(f"id={delivery_id} ", "")
            for secret in (marker, signature, signature.removeprefix("sha256="), SECRET.decode(), document):
                assert secret not in rest

    one_delivery()
