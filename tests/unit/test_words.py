"""Counts in words: one is singular, every other number plural."""

import pytest

from pipelines._words import counted


@pytest.mark.parametrize(
    ("number", "noun", "plural", "says"),
    [
        (1, "day", None, "1 day"),
        (0, "day", None, "0 days"),
        (2, "day", None, "2 days"),
        (1024, "row", None, "1,024 rows"),
        (1, "delivery", "deliveries", "1 delivery"),
        (3, "delivery", "deliveries", "3 deliveries"),
    ],
)
def test_a_count_is_singular_for_exactly_one(number: int, noun: str, plural: str | None, says: str) -> None:
    assert counted(number, noun, plural) == says
