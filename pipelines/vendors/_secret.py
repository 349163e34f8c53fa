"""A vendor's key, whose repr never shows it: `reveal()` is the only way to read it.

Its own (the library imports nothing of the project): the application wraps the key it read in
one, and every error text of the library is made without it (no header is ever quoted).
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["Key"]


@dataclass(frozen=True)
class Key:
    _value: str = field(repr=False)

    def reveal(self) -> str:
        return self._value

    def __repr__(self) -> str:
        return "Key('***')"

    __str__ = __repr__
