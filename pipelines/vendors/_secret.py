"""A vendor's key, whose repr never shows it: `reveal()` is the only way to read it; and
`redact`, the one function through which every text a vendor sent is quoted (an error's
message, a connection's failure) and every answer's strings pass (`redact_json`), so a key a
vendor or a proxy echoes reaches no line, log, table nor archive.

Its own (the library imports nothing of the project): the application wraps the key it read in
one, and every error text of the library is made without it (no header is ever quoted).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Key", "hide", "redact", "redact_json"]

_REDACTED = "[redacted]"
# A shorter value replaced everywhere would cut it out of unrelated words; no vendor key is so short.
_MIN_LENGTH = 8
_LOCK = threading.Lock()
_hidden: tuple[str, ...] = ()  # longest first, so a value holding another is replaced whole


def hide(value: str) -> None:
    """Have `redact` replace `value` from now on (and each of its parts a space or newline
    separates, which an echo may quote alone: httpx quotes a header's bytes escaped)."""
    global _hidden
    found = {part for part in (value.strip(), *value.split()) if len(part) >= _MIN_LENGTH}
    with _LOCK:
        _hidden = tuple(sorted(set(_hidden) | found, key=len, reverse=True))


def redact(text: str) -> str:
    """The text with every key made in this process (and its derived credentials) replaced."""
    for value in _hidden:
        text = text.replace(value, _REDACTED)
    return text


def redact_json(value: Any) -> Any:
    """Decoded JSON with `redact` applied to every string in it, keys included."""
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, list):
        return [redact_json(item) for item in value]
    if isinstance(value, dict):
        return {redact(k) if isinstance(k, str) else k: redact_json(v) for k, v in value.items()}
    return value


@dataclass(frozen=True)
class Key:
    _value: str = field(repr=False)

    def __post_init__(self) -> None:
        hide(self._value)

    def reveal(self) -> str:
        return self._value

    def __repr__(self) -> str:
        return "Key('***')"

    __str__ = __repr__
