"""An API answer read whole: status, headers and body, decoded on demand."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Any

import httpx

from pipelines.service.errors import MalformedResponse

_LINK_NEXT = re.compile(r'<([^>]+)>\s*;\s*rel="?next"?')


@dataclass(frozen=True)
class Answer:
    method: str
    status: int
    headers: httpx.Headers
    body: bytes
    url: str

    def json(self) -> Any:
        """The decoded body; None for an empty one (204)."""
        if not self.body:
            return None
        try:
            return json.loads(self.body)
        except ValueError:
            kind = self.headers.get("content-type") or "no content type"
            raise MalformedResponse(
                method=self.method,
                url=self.url,
                status=self.status,
                message=f"the answer is not JSON ({kind}, {len(self.body):,} bytes)",
                advice="Check SERVICE_BASE_URL: a proxy or login page may be answering instead of the API.",
            ) from None

    @property
    def served_at(self) -> datetime | None:
        """The service's clock when it answered (the HTTP ``Date`` header); None if absent or unreadable."""
        try:
            served = parsedate_to_datetime(self.headers.get("date") or "")
        except (TypeError, ValueError, IndexError):
            return None
        return served.astimezone(UTC) if served.tzinfo else served.replace(tzinfo=UTC)

    @property
    def next_link(self) -> str | None:
        """The ``Link: rel="next"`` URL, if the answer names one."""
        match = _LINK_NEXT.search(self.headers.get("link") or "")
        return match.group(1) if match else None
