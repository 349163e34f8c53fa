"""GraphQL answers: the error rule (documents live beside their callers, e.g. ``queries/``).

A response with an ``errors`` array is a failure even with HTTP 200 (spec 4.5).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pipelines.service.errors import GraphQLError, ServiceError, redact_url

def data_of(*, body: Any, url: str) -> Any:
    """The ``data`` member of a GraphQL answer, or GraphQLError with every message."""
    if not isinstance(body, Mapping):
        raise ServiceError(f"POST {redact_url(url)} did not answer a JSON object")
    errors = body.get("errors")
    if errors:
        messages = tuple(
            str(e.get("message", e)) if isinstance(e, Mapping) else str(e)
            for e in (errors if isinstance(errors, list) else [errors])
        )
        raise GraphQLError(url=url, messages=messages)
    return body.get("data")
