"""GraphQL answers: the error rule (documents live beside their callers, e.g. ``queries/``).

A response with an ``errors`` array is a failure even with HTTP 200 (docs/service-contract.md §5). When every
error is ``NOT_FOUND`` at a path and ``data`` came too, the failure is GraphQLNotFound, which
carries what did resolve: the public service answers a missing node that way.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pipelines.service.errors import GraphQLError, GraphQLNotFound, ServiceError, redact_url


def data_of(*, body: Any, url: str) -> Any:
    """The ``data`` member of a GraphQL answer, or GraphQLError with every message."""
    if not isinstance(body, Mapping):
        raise ServiceError(f"POST {redact_url(url)} did not answer a JSON object")
    errors = body.get("errors")
    if errors:
        errors = errors if isinstance(errors, list) else [errors]
        messages = tuple(str(e.get("message", e)) if isinstance(e, Mapping) else str(e) for e in errors)
        data = body.get("data")
        paths = [p for p in map(_not_found_path, errors) if p is not None]
        if isinstance(data, Mapping) and len(paths) == len(errors):
            raise GraphQLNotFound(
                url=url, messages=messages, data=data, not_found=dict(zip(paths, messages, strict=True))
            )
        raise GraphQLError(url=url, messages=messages)
    return body.get("data")


def _not_found_path(error: Any) -> tuple[str | int, ...] | None:
    """The path of a NOT_FOUND error, or None when it is another error or names no field."""
    if not isinstance(error, Mapping) or error.get("type") != "NOT_FOUND":
        return None
    path = error.get("path")
    if not isinstance(path, list) or not path or not all(isinstance(p, str | int) for p in path):
        return None
    return tuple(path)
