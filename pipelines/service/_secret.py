"""A credential whose repr never shows it (shared by the settings and the auth classes)."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Secret:
    """A credential; ``reveal()`` is the only way to read it."""

    _value: str = field(repr=False)

    def reveal(self) -> str:
        return self._value

    def __repr__(self) -> str:
        return "Secret('***')"

    __str__ = __repr__
