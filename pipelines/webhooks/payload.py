"""Which bodies are a delivery's payload: a JSON object, sent as the body or in a form's
`payload=` field, in strict UTF-8 and standard JSON, each key once in every object.

Python's JSON keeps a repeated key's last value and DuckDB's its first, so a payload repeating
one would read one way here and another in the warehouse: it is refused, naming the key and
where it is, as is a form carrying `payload=` twice.
"""

from __future__ import annotations

import json
import re
from typing import Any
from urllib.parse import parse_qs

__all__ = ["PAYLOAD_RULES", "PayloadRefused", "payload_document", "spooled_refusal"]

_FORM = "application/x-www-form-urlencoded"
# The rules above, numbered: the receiver marks each spooled record with the number it checked,
# so the loader checks again only records spooled before (a bump makes it check older ones).
PAYLOAD_RULES = 1


class PayloadRefused(Exception):
    """A body refused with a reason worth telling its sender (400)."""


def payload_document(content_type: str, body: bytes | bytearray) -> bytes | None:
    """The payload JSON object's bytes (form bodies carry it in `payload=`), or None if it is not one."""
    if content_type.split(";", 1)[0].strip().lower() == _FORM:
        try:
            values = parse_qs(body.decode("utf-8"), strict_parsing=True).get("payload")
        except (UnicodeDecodeError, ValueError):
            return None
        if not values:
            return None
        if len(values) > 1:  # which one is the delivery would depend on who reads the body
            raise PayloadRefused("duplicate form field payload: send it once")
        document = values[0].encode("utf-8")
    else:
        document = bytes(body)
    try:
        # Strict UTF-8 and standard JSON only (json.loads alone would take UTF-16 and NaN).
        parsed = _parse(document.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return None
    except RecursionError:
        # The parser recurses once per level of nesting and stops at the interpreter's limit (about
        # 1,000 levels): the sender's document, not the receiver, is at fault.
        raise PayloadRefused("payload is nested too deeply") from None
    return document if isinstance(parsed, dict) else None


def spooled_refusal(document: bytes) -> str | None:
    """Why the receiver would refuse a spooled payload now (a segment may predate a rule), or None.

    The loader sets such a payload aside with this reason: it is read one way everywhere."""
    try:
        payload_document("application/json", document)
    except PayloadRefused as refused:
        return str(refused)
    return None


def _reject_constant(name: str) -> None:
    raise ValueError(f"{name} is not JSON")


def _parse(text: str) -> Any:
    """The document; raises ValueError if it is no standard JSON, `PayloadRefused` if a key repeats in an object."""
    try:
        return json.loads(text, parse_constant=_reject_constant, object_pairs_hook=_unique_keys)
    except _DuplicateKey:
        pass
    # Parsed again whole (a key may repeat before the text turns out not to be JSON at all).
    # Python keeps a repeated key's last value, DuckDB's JSON its first: such a payload would
    # read one way here and another in the warehouse, so it is refused, naming where.
    where = _duplicate_key(json.loads(text, parse_constant=_reject_constant, object_pairs_hook=_Pairs))
    raise PayloadRefused(f"duplicate key {where}: send each key once")


class _DuplicateKey(Exception):
    """An object of the payload has a key twice."""


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    found = dict(pairs)
    if len(found) != len(pairs):
        raise _DuplicateKey
    return found


class _Pairs(list[tuple[str, Any]]):
    """An object as parsed, every pair kept in order: where the repeated key is, for the refusal."""


# The sender's text in a refusal is bounded: a key shown to this many characters, a path to its last ones.
_KEY_CHARS = 64
_PATH_CHARS = 240
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _shown(key: str) -> str:
    return json.dumps(key[:_KEY_CHARS]) + ("…" if len(key) > _KEY_CHARS else "")


def _duplicate_key(parsed: Any) -> str:
    """`"key" at <path>` of the first repeated key in document order, the path in JSONPath."""
    stack: list[tuple[str, Any]] = [("$", parsed)]
    while stack:
        path, value = stack.pop()
        children: list[tuple[str, Any]] = []
        if isinstance(value, _Pairs):
            seen: set[str] = set()
            for key, item in value:
                if key in seen:
                    return f"{_shown(key)} at {path if len(path) <= _PATH_CHARS else '…' + path[-_PATH_CHARS:]}"
                seen.add(key)
                children.append((f"{path}.{key}" if _NAME.fullmatch(key) else f"{path}[{_shown(key)}]", item))
        elif isinstance(value, list):
            children = [(f"{path}[{index}]", item) for index, item in enumerate(value)]
        stack.extend(reversed(children))
    raise AssertionError("no repeated key found in a payload refused for one")
