"""An email as every part of the pipeline keys, compares and hashes it: without the whitespace
around it, in lower case. A vendor's ` Dev@Example.com ` is `dev@example.com`, so one person is
one row, `forget` reaches every spelling, and an erased person's hash matches each of them."""

from __future__ import annotations

__all__ = ["normal_email"]


def normal_email(text: str) -> str:
    return text.strip().lower()
