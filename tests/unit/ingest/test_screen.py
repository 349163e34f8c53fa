"""Lines no parser may see are told apart on the raw bytes: nesting too deep, invalid UTF-8, lone surrogate escapes."""

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipelines.ingest.screen import MAX_DEPTH, line_problems, lone_surrogate, nesting_depth


@settings(max_examples=200, deadline=None)
@given(
    value=st.recursive(
        st.none() | st.booleans() | st.integers() | st.text(alphabet='ab{}[]"\\/\n\u00e9'),
        lambda inner: (
            st.lists(inner, max_size=3) | st.dictionaries(st.text(alphabet='k{}[]"\\', max_size=4), inner, max_size=3)
        ),
        max_leaves=30,
    )
)
def test_nesting_depth_of_a_json_line_is_its_real_depth_whatever_its_strings_hold(value):
    def depth(v) -> int:
        if isinstance(v, list):
            return 1 + max(map(depth, v), default=0)
        if isinstance(v, dict):
            return 1 + max(map(depth, v.values()), default=0)
        return 0

    for ensure_ascii in (True, False):
        assert nesting_depth(json.dumps(value, ensure_ascii=ensure_ascii).encode()) == depth(value)


@pytest.mark.parametrize(
    ("line", "parser_depth"),
    [
        (b'{"a": "[[[[', 1),  # the brackets are text of a string no quote closes
        (b"[" * 20_000, 20_000),
        (b'{"a": ' * 700, 700),
        (b'"\\\\"' + b"[" * 70, 70),  # an escaped backslash ends the string before the brackets
        (b'{"a": "\\"", "b": ' + b"[" * 70, 71),  # an escaped quote does not end it
    ],
)
def test_nesting_depth_of_a_broken_line_is_never_below_what_a_parser_reaches(line: bytes, parser_depth: int):
    assert nesting_depth(line) >= parser_depth


@settings(max_examples=200, deadline=None)
@given(
    st.text(alphabet=st.sampled_from(["a", "\\", '"', "\ud800", "\udbff", "\udc00", "\udfff", "\U0001f600", "\u00e9"]))
)
def test_a_lone_surrogate_escape_is_found_exactly_when_the_text_cannot_be_utf8(text: str):
    line = json.dumps({"note": text}).encode()
    decoded = json.loads(line)["note"]
    try:
        decoded.encode("utf-8")
        encodable = True
    except UnicodeEncodeError:
        encodable = False
    assert (lone_surrogate(line) is None) == encodable
    assert (0 in line_problems(line)) == (not encodable)


def test_the_screen_names_each_line_no_parser_may_see_and_passes_the_others():
    good = b'{"user_id": 1, "note": "[[[[{{{{ \\"\\\\ud800 \\ud83d\\ude00"}'
    lines = [
        good,
        b'{"deep": ' + b'{"a": ' * 700 + b"1" + b"}" * 700 + b"}",
        b'{"deep": ' + b"[" * MAX_DEPTH + b"]" * MAX_DEPTH + b"}",  # one over the limit
        b"[" * (MAX_DEPTH - 1) + b"]" * (MAX_DEPTH - 1),  # not over the limit
        b'{"note": "\\udc00"}',
        b'{"note": "\xff\xfe"}',
        b'{"note": "\xed\xa0\x80"}',  # a surrogate written as UTF-8 bytes
        good,
    ]
    found = line_problems(b"\n".join(lines) + b"\n")
    assert found == {
        1: "nested deeper than 64 levels (701 brackets open at once); not parsed",
        2: "nested deeper than 64 levels (65 brackets open at once); not parsed",
        4: "invalid Unicode: lone surrogate escape \\udc00 (half of a UTF-16 pair, not a character)",
        5: "invalid UTF-8: byte 0xff at byte 11 of the line (invalid start byte)",
        6: "invalid UTF-8: byte 0xed at byte 11 of the line (invalid continuation byte)",
    }
