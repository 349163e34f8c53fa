"""`redact`: every key made in the process, and the parts of it an echo may quote alone, out of
any text and any decoded answer."""

import base64

from hypothesis import given
from hypothesis import strategies as st

from pipelines.vendors import Key
from pipelines.vendors._secret import redact, redact_json
from pipelines.vendors.auth import BasicKeyAuth

SECRET = "sk-ant-admin01-" + "q7" * 16


@given(st.text(), st.text())
def test_a_key_anywhere_in_a_text_is_replaced(before: str, after: str) -> None:
    Key(SECRET)
    assert SECRET not in redact(before + SECRET + after)


def test_a_decoded_answer_keeps_its_shape_with_the_key_out_of_every_string_and_key() -> None:
    Key(SECRET)
    body = {"data": [{"terminal_type": f"x-api-key: {SECRET}", SECRET: 5, "n": 1.5, "ok": None}]}
    assert redact_json(body) == {
        "data": [{"terminal_type": "x-api-key: [redacted]", "[redacted]": 5, "n": 1.5, "ok": None}]
    }


def test_each_line_of_a_key_pasted_with_a_newline_is_replaced_as_httpx_quotes_it() -> None:
    Key("first-line-of-a-key\nsecond-line-of-it")
    quoted = str(b"first-line-of-a-key\nsecond-line-of-it")
    assert "first-line" not in redact(quoted) and "second-line" not in redact(quoted)


def test_cursor_s_basic_credential_is_replaced_as_the_key_is() -> None:
    BasicKeyAuth(key=Key("key_" + "cd" * 32))
    token = base64.b64encode(f"key_{'cd' * 32}:".encode()).decode()
    assert token not in redact(f"Authorization: Basic {token}")


def test_a_value_too_short_to_be_a_key_cuts_nothing_out_of_other_text() -> None:
    Key("abc")
    assert redact("abcdef abc") == "abcdef abc"
