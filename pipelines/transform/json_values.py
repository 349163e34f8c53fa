"""JSON read and written so that `extra` (and every JSON text the pipeline stores) stays JSON.

Python's json module reads `1e400` as infinity and takes `NaN` and `Infinity`, which are not
JSON, then writes them back as `Infinity` and `NaN`, which strict readers refuse. Here such a
value is an `OutOfRange` that keeps the text it came as: it fits no declared type (the column
is NULL and the field counts as mistyped drift) and is written as that text, a JSON string:
`{"median_minutes_to_merge": "1e400"}`. Writing a non-finite float any other way raises.
"""

from __future__ import annotations

import json
import math
from typing import Any

__all__ = ["OutOfRange", "dumps", "loads"]


class OutOfRange:
    """A number literal no double holds (`1e400`), or `NaN` / `Infinity` / `-Infinity`, as sent."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text

    def __repr__(self) -> str:
        return self.text

    def __eq__(self, other: object) -> bool:
        return isinstance(other, OutOfRange) and other.text == self.text

    def __hash__(self) -> int:
        return hash(self.text)


def _number(text: str) -> float | OutOfRange:
    value = float(text)
    return value if math.isfinite(value) else OutOfRange(text)


def loads(text: str | bytes) -> Any:
    """json.loads, with numbers out of a double's range and the non-JSON constants kept as sent."""
    return json.loads(text, parse_float=_number, parse_constant=OutOfRange)


def _as_text(value: object) -> str:
    if isinstance(value, OutOfRange):
        return value.text
    raise TypeError(f"{type(value).__name__} is not JSON")


def dumps(value: Any) -> str:
    """Compact JSON; an OutOfRange as its text (a string); a non-finite float raises ValueError."""
    return json.dumps(value, separators=(",", ":"), default=_as_text, allow_nan=False)
