"""The vendors' example responses as docs/vendors.md quotes them from the vendors' pages, and a
comparison of an answer's shape against one: the same fields, each of the same JSON type."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

_DOC = Path(__file__).resolve().parents[3] / "docs" / "vendors.md"
_FENCE = re.compile(r"^```json\n(.*?)^```", re.M | re.S)


def example(field: str) -> Any:
    """The example response of docs/vendors.md that has `field` at its top."""
    blocks = [json.loads(block) for block in _FENCE.findall(_DOC.read_text())]
    found = [b for b in blocks if isinstance(b, dict) and field in b]
    assert len(found) == 1, f"docs/vendors.md has {len(found)} example responses with {field!r}"
    return found[0]


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    return type(value).__name__


# Fields the vendors' references document as "or null".
NULLABLE = frozenset(
    {
        "next_page",
        "subscription_type",
        "mostUsedModel",
        "applyMostUsedExtension",
        "tabMostUsedExtension",
        "clientVersion",
        "monthlyLimitDollars",
    }
)


def differences(served: Any, documented: Any, path: str = "$", optional: frozenset[str] = frozenset()) -> list[str]:
    """Where `served` departs from `documented`: a field missing or extra (fields named in
    `optional` may be missing), or of another type (null where NULLABLE says so). A list's items
    are each held against the documented list's first."""
    if served is None and path.rsplit(".", 1)[-1] in NULLABLE:
        return []
    if _kind(served) != _kind(documented):
        return [f"{path}: {_kind(served)}, documented {_kind(documented)}"]
    if isinstance(documented, dict):
        out = [f"{path}.{k}: not documented" for k in served.keys() - documented.keys()]
        out += [f"{path}.{k}: missing" for k in documented.keys() - served.keys() if k not in optional]
        for k in served.keys() & documented.keys():
            out += differences(served[k], documented[k], f"{path}.{k}", optional)
        return out
    if isinstance(documented, list) and documented:
        return [d for n, item in enumerate(served) for d in differences(item, documented[0], f"{path}[{n}]", optional)]
    return []
