"""The delivery log line: fixed fields, and header values that can neither split nor flood it."""

from __future__ import annotations

import logging
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pipelines.webhooks.deliveries import DeliveryLine, log_field, serving_log_config

_LINE = re.compile(r"delivery id=(\S+) event=(\S+) outcome=(\w+) status=(\d{3}) bytes=(\d+) ms=(\d+\.\d)")


def _logged(line: DeliveryLine, status: int, caplog: pytest.LogCaptureFixture) -> str:
    caplog.clear()
    with caplog.at_level(logging.INFO, logger="pipelines.webhooks.deliveries"):
        line.log(status)
    (record,) = caplog.records
    return record.getMessage()


def test_a_line_names_id_event_outcome_status_bytes_and_milliseconds(caplog):
    line = DeliveryLine.start(delivery_id="abc-123", event="push", max_id=200)
    line.body_bytes, line.outcome = 1234, "spooled"
    match = _LINE.fullmatch(_logged(line, 200, caplog))
    assert match is not None
    assert match.groups()[:5] == ("abc-123", "push", "spooled", "200", "1234")


def test_a_missing_or_over_long_id_is_a_dash(caplog):
    assert DeliveryLine.start(delivery_id=None, event=None, max_id=200).id == "-"
    assert DeliveryLine.start(delivery_id="", event="", max_id=200).event == "-"
    assert DeliveryLine.start(delivery_id="x" * 201, event="push", max_id=200).id == "-"
    assert DeliveryLine.start(delivery_id="x" * 200, event="push", max_id=200).id == "x" * 200


def test_control_characters_spaces_and_backslashes_are_escaped():
    assert log_field("a\nb\r\x00 c\\d\té", limit=100) == r"a\x0ab\x0d\x00\x20c\x5cd\x09\xe9"
    assert log_field("a\u2028b", limit=100) == r"a\u2028b"


def test_a_long_event_is_cut():
    assert DeliveryLine.start(delivery_id="d", event="e" * 10_000, max_id=200).event == "e" * 64 + "..."


@given(delivery_id=st.text(max_size=300), event=st.text(max_size=300))
def test_any_header_values_make_one_line_of_six_bounded_fields(delivery_id, event):
    line = DeliveryLine.start(delivery_id=delivery_id, event=event, max_id=200)
    for value in (line.id, line.event):
        assert value and value.isascii() and value.isprintable()
        assert not any(char.isspace() for char in value)
        assert len(value) <= 200 * 10 + 3  # every character escaped, at worst as \UXXXXXXXX
    message = f"delivery id={line.id} event={line.event} outcome=spooled status=200 bytes=1 ms=0.1"
    assert _LINE.fullmatch(message) is not None


def test_served_the_receivers_loggers_write_info_to_uvicorns_stderr_handler():
    config = serving_log_config()
    ours = config["loggers"]["pipelines.webhooks"]
    assert ours == {"handlers": ["default"], "level": "INFO", "propagate": False}
    assert config["handlers"]["default"]["stream"] == "ext://sys.stderr"
    assert not config["disable_existing_loggers"]  # the loggers made at import stay enabled
