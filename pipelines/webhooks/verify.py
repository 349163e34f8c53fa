"""Delivery signatures: `sha256=` + lowercase hex HMAC-SHA256 of the raw body."""

from __future__ import annotations

import hashlib
import hmac

_PREFIX = "sha256="


def sign(*, secret: bytes, body: bytes | bytearray) -> str:
    """The header value a sender holding `secret` puts on `body`."""
    return _PREFIX + hmac.new(secret, body, hashlib.sha256).hexdigest()


def signature_matches(*, secret: bytes, body: bytes | bytearray, header: str | None) -> bool:
    """True only for a `sha256=` header whose digest matches; any other algorithm is refused."""
    if header is None or not header.startswith(_PREFIX):
        return False
    # Compare bytes: compare_digest refuses non-ASCII str, and a hostile header may carry some.
    return hmac.compare_digest(sign(secret=secret, body=body).encode(), header.encode("utf-8", "replace"))
