"""A vendor's values: a record written again reads back the same (Decimal money exact); the
keys naming a person follow from the declarations; a record's person as its columns hold it."""

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from pipelines.transform.vendor_values import EMAIL_KEYS, ID_KEYS, parse_line, record_person, record_text
from pipelines.vendors.wire import ENDPOINTS
from tests.unit.vendors._answers import CLAUDE_RECORD, CURSOR_DAY

_JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**70), 2**70)
    | st.text(max_size=5)
    | st.decimals(allow_nan=False, allow_infinity=False, places=4),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3),
    max_leaves=10,
)


@given(_JSON)
def test_a_record_written_again_reads_back_the_same_numbers(value: Any) -> None:
    assert parse_line(record_text(value)) == value


def test_the_keys_naming_a_person_are_every_vendor_s_declared_ones() -> None:
    assert {"email", "email_address"} == EMAIL_KEYS
    assert {"userId", "id"} == ID_KEYS


def test_a_record_names_its_email_in_lower_case_and_its_id_as_text() -> None:
    record = {**CLAUDE_RECORD, "actor": {"type": "user_actor", "email_address": "User@X.com"}}
    assert record_person(ENDPOINTS["claude_code"], record) == ("user@x.com", None)
    assert record_person(ENDPOINTS["daily_usage"], CURSOR_DAY) == ("developer@company.com", "12345")
