"""A credential whose repr never shows it (shared by the settings and the auth classes)."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Secret:
    """A credential; ``reveal()`` is the only way to read it."""

    _value: str = field(repr=False)

    def __post_init__(self) -> None:
        # Every credential the process holds is known to the one redactor from its creation on
        # (the settings' token, app key, client secret and webhook secret included), so no
        # error text or log line can carry it, whichever part of an answer echoed it.
        from pipelines.service._redaction import register_secrets

        register_secrets(self)

    def reveal(self) -> str:
        return self._value

    def __repr__(self) -> str:
        return "Secret('***')"

    __str__ = __repr__
