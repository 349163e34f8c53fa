"""What one fetch of an endpoint brought: its records as sent, the envelope beside them, and the
vendor's clock when it answered (the earliest of its pages: the figures are as of then)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any

from pipelines.vendors.client import Answer
from pipelines.vendors.errors import Malformed
from pipelines.vendors.wire import Endpoint

__all__ = ["Fetched", "records_of"]


@dataclass
class Fetched:
    endpoint: Endpoint
    start: date  # the first day it covers
    end: date  # its last day
    records: list[dict[str, Any]] = field(default_factory=list)
    envelope: dict[str, Any] = field(default_factory=dict)  # the first answer's keys beside the records
    served_at: datetime | None = None
    calls: int = 0

    def add(self, answer: Answer, title: str) -> dict[str, Any]:
        """The answer's records added; its body returned (for its paging keys)."""
        body, records = records_of(answer, self.endpoint, title)
        self.records += records
        if not self.calls:
            self.envelope = {k: v for k, v in body.items() if k != self.endpoint.records}
        self.calls += 1
        if answer.served_at is not None:
            self.served_at = answer.served_at if self.served_at is None else min(self.served_at, answer.served_at)
        return body

    def on_its_day(self) -> Fetched:
        """A read of the vendor's state now (members, spend): of the vendor's day, where it said."""
        if self.served_at is not None:
            self.start = self.end = self.served_at.date()
        return self


def records_of(answer: Answer, endpoint: Endpoint, title: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The body and its records; a body without a list of objects under the documented key is
    Malformed (a proxy's page, a changed API): nothing of it lands."""
    body = answer.body
    records = body.get(endpoint.records) if isinstance(body, dict) else None
    if not isinstance(records, list) or not all(isinstance(r, dict) for r in records):
        raise Malformed(
            title, f"{endpoint.method} {endpoint.path} answered without a list of records under {endpoint.records!r}"
        )
    return body, records
