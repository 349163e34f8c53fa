"""Every spelling of an email that differs by case or surrounding whitespace is one email."""

from hypothesis import given
from hypothesis import strategies as st

from pipelines.transform.emails import normal_email

_SPACE = st.text(alphabet=" \t\r\n\u00a0\u2003", max_size=3)
_EMAIL = st.from_regex(r"[a-z0-9.+-]{1,10}@[a-z0-9-]{1,10}\.[a-z]{2,4}", fullmatch=True)


@given(_EMAIL, _SPACE, _SPACE, st.lists(st.booleans(), max_size=40))
def test_an_email_in_any_case_with_whitespace_around_it_is_the_same_email(
    email: str, before: str, after: str, upper: list[bool]
) -> None:
    spelled = "".join(c.upper() if i < len(upper) and upper[i] else c for i, c in enumerate(email))
    assert normal_email(before + spelled + after) == email


@given(st.text())
def test_normalizing_twice_changes_nothing(text: str) -> None:
    assert normal_email(normal_email(text)) == normal_email(text)


def test_an_inner_difference_stays_a_different_email() -> None:
    assert normal_email("dev+ops@example.com") != normal_email("dev@example.com")
    assert normal_email("d\u0435v@example.com") != normal_email("dev@example.com")
