"""Which bodies the receiver takes as a payload document (pure; the HTTP path is tested elsewhere)."""

import json
from urllib.parse import urlencode

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pipelines.webhooks._body import Refused
from pipelines.webhooks.app import _payload_document

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
        with pytest.raises(Refused) as refused:
            _payload_document(content_type, body)
        assert (refused.value.outcome, refused.value.answer.status_code) == ("bad_request", 400)
        assert json.loads(refused.value.answer.body) == {"message": "payload is nested too deeply"}


def _dumps_repeating(value, path: tuple, target: tuple) -> str:
    """`value` as JSON text, the object at `target` with its first key written twice (a new key `k` if empty)."""
    if isinstance(value, dict):
        pairs = [json.dumps(k) + ": " + _dumps_repeating(v, (*path, k), target) for k, v in value.items()]
        if path == target:
            pairs.append((json.dumps(next(iter(value))) if value else '"k"') + ": 0")
            if not value:
                pairs.append('"k": 1')
        return "{" + ", ".join(pairs) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_dumps_repeating(v, (*path, i), target) for i, v in enumerate(value)) + "]"
    return json.dumps(value)


def _objects(value, path: tuple = ()) -> list[tuple]:
    inner = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    found = [path] if isinstance(value, dict) else []
    return found + [p for key, item in inner for p in _objects(item, (*path, key))]


def _jsonpath(path: tuple) -> str:
    text = "$"
    for step in path:
        if isinstance(step, int):
            text += f"[{step}]"
        elif step.isidentifier() and step.isascii():
            text += f".{step}"
        else:
            text += f"[{json.dumps(step)}]"
    return text


@given(document=st.dictionaries(st.text(max_size=8), _json_values, max_size=4), data=st.data())
def test_a_key_repeated_in_any_object_is_refused_400_naming_the_key_and_where(document, data):
    """Python keeps a repeated key's last value, DuckDB its first: such a payload is read one way by
    nobody, it is refused, in either encoding, naming the key and its JSONPath."""
    target = data.draw(st.sampled_from(_objects(document)))
    text = _dumps_repeating(document, (), target)
    repeated = next(iter(_at(document, target)), "k")
    for content_type, body in [("application/json", text.encode()), (FORM, urlencode({"payload": text}).encode())]:
        with pytest.raises(Refused) as refused:
            _payload_document(content_type, body)
        assert (refused.value.outcome, refused.value.answer.status_code) == ("bad_request", 400)
        message = json.loads(refused.value.answer.body)["message"]
        # The first repeat in document order; the target's is the only one.
        assert message == f"duplicate key {json.dumps(repeated)} at {_jsonpath(target)}: send each key once"


def _at(document, path: tuple):
    for step in path:
        document = document[step]
    return document


def test_a_repeated_key_spelled_with_an_escape_is_a_repeat_and_a_long_key_is_shown_cut():
    with pytest.raises(Refused) as refused:
        _payload_document("application/json", b'{"sender": {"login": "a", "\\u006cogin": "b"}}')
    assert json.loads(refused.value.answer.body)["message"] == ('duplicate key "login" at $.sender: send each key once')
    key = "x" * 10_000
    with pytest.raises(Refused) as refused:
        _payload_document("application/json", json.dumps({key: 1}).replace("}", f', "{key}": 2}}').encode())
    message = json.loads(refused.value.answer.body)["message"]
    assert message == f'duplicate key "{"x" * 64}"… at $: send each key once'


def test_a_repeated_key_before_text_that_is_not_json_is_refused_as_not_json():
    assert _payload_document("application/json", b'{"a": {"b": 1, "b": 2}, oops') is None
    assert _payload_document("application/json", b'{"a": {"b": 1, "b": 2}, "c": NaN}') is None


def test_a_form_with_the_payload_field_twice_is_refused_400():
    body = urlencode([("payload", '{"a": 1}'), ("payload", '{"a": 2}')]).encode()
    with pytest.raises(Refused) as refused:
        _payload_document(FORM, body)
    assert json.loads(refused.value.answer.body) == {"message": "duplicate form field payload: send it once"}
