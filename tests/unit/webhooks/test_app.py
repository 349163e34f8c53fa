"""Which bodies the receiver takes as a payload document (pure; the HTTP path is tested elsewhere)."""

import json
from urllib.parse import urlencode

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pipelines.webhooks.app import _payload_document, _Refused

FORM = "application/x-www-form-urlencoded"
_json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=10,
)


@given(document=st.dictionaries(st.text(max_size=8), _json_values, max_size=4))
def test_a_json_object_is_taken_as_sent_in_either_encoding(document):
    text = json.dumps(document)
    assert _payload_document("application/json", text.encode()) == text.encode()
    assert _payload_document(f"{FORM}; charset=utf-8", urlencode({"payload": text}).encode()) == text.encode()


def test_non_objects_and_non_standard_json_are_refused():
    for body in [b"[1, 2]", b'"text"', b"Hello, World!", b'{"a": NaN}', b'{"a": Infinity}', b""]:
        assert _payload_document("application/json", body) is None, body


def test_utf16_json_is_refused():
    assert _payload_document("application/json", '{"a": 1}'.encode("utf-16")) is None


def test_form_without_a_payload_field_is_refused():
    assert _payload_document(FORM, urlencode({"other": "{}"}).encode()) is None
    assert _payload_document(FORM, b"%%%") is None


def test_a_document_nested_deeper_than_the_parser_goes_is_refused_400_in_either_encoding():
    deep = '{"a": ' + "[" * 5000 + "]" * 5000 + "}"
    for content_type, body in [("application/json", deep.encode()), (FORM, urlencode({"payload": deep}).encode())]:
        with pytest.raises(_Refused) as refused:
            _payload_document(content_type, body)
        assert (refused.value.outcome, refused.value.answer.status_code) == ("bad_request", 400)
        assert json.loads(refused.value.answer.body) == {"message": "payload is nested too deeply"}
