"""Counts in the words a person reads: "1 day", "2 days", "1,024 rows"."""

from __future__ import annotations


def counted(number: int, noun: str, plural: str | None = None) -> str:
    """`number` and its noun, singular for exactly one; `plural` when adding an s is wrong."""
    return f"{number:,} {noun if number == 1 else plural or noun + 's'}"
