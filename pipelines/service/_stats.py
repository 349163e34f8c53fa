"""What the client reports about itself: rate-limit budgets and request counts."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import httpx

__all__ = ["Budget", "ClientStats"]


@dataclass(frozen=True)
class Budget:
    """One resource's rate-limit budget as of the last answer that reported it."""

    limit: int | None
    remaining: int | None
    reset: float | None
    used: int | None
    resource: str | None


@dataclass(frozen=True)
class ClientStats:
    """API requests sent (signed-link downloads are not counted: they spend no budget)."""

    requests: int = 0
    not_modified: int = 0
    retries: Mapping[str, int] = field(default_factory=dict)
    waited_seconds: float = 0.0
    token_exchanges: int = 0


def budget_of(values: Mapping[str, Any], *, resource: str) -> Budget:
    """A budget from ``limit``/``remaining``/``reset``/``used`` (a ``/rate_limit`` entry or headers)."""
    return Budget(
        limit=to_int(values.get("limit")),
        remaining=to_int(values.get("remaining")),
        reset=to_float(values.get("reset")),
        used=to_int(values.get("used")),
        resource=resource,
    )


def budget_in(headers: httpx.Headers) -> Budget | None:
    """The budget an answer's ``x-ratelimit-*`` headers report, or None when they report none."""
    if "x-ratelimit-remaining" not in headers:
        return None
    # The public service names the resource; an answer that does not is counted as core.
    resource = headers.get("x-ratelimit-resource") or "core"
    return budget_of(
        {name: headers.get(f"x-ratelimit-{name}") for name in ("limit", "remaining", "reset", "used")},
        resource=resource,
    )


def to_int(value: object) -> int | None:
    try:
        return int(value) if isinstance(value, (str, int)) else None
    except ValueError:
        return None


def to_float(value: object) -> float | None:
    try:
        return float(value) if isinstance(value, (str, int, float)) else None
    except ValueError:
        return None
