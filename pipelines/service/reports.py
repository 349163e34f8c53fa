"""Report metadata and streamed report files (the seam to ingestion, docs/contracts.md)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import date, datetime

import httpx

from pipelines.service.client import ServiceClient
from pipelines.service.errors import NotFound, ServiceError, TruncatedDownload, redact_url
from pipelines.service.kinds import Kind, Level, ReportKind, Scope, report_kind


@dataclass(frozen=True)
class ReportRef:
    scope: Scope
    scope_name: str
    kind: Kind
    level: Level  # with kind, one of pipelines/service/kinds.py's declarations
    day: date | None = None

    def __post_init__(self) -> None:
        if (self.kind == "1-day") != (self.day is not None):
            raise ValueError("a 1-day report needs a day; a 28-day report takes none")
        report_kind(self.level, self.kind)

    @property
    def report(self) -> ReportKind:
        """This report's declaration."""
        return report_kind(self.level, self.kind)


@dataclass(frozen=True)
class ReportMetadata:
    ref: ReportRef
    start_day: date
    end_day: date
    links: tuple[str, ...]
    # The service's clock when it answered (its Date header): whether a day was final when
    # fetched is judged on the service's clock, not on a local one that may be skewed.
    served_at: datetime | None = None

    def __repr__(self) -> str:
        # The links are signed: show how many, never their queries.
        return (
            f"ReportMetadata(ref={self.ref!r}, start_day={self.start_day}, end_day={self.end_day}, "
            f"links=<{len(self.links)} signed>, served_at={self.served_at})"
        )


class ReportStream:
    """One report file as bytes; ``expected_bytes`` is its Content-Length when given."""

    def __init__(self, *, response: httpx.Response, url: str) -> None:
        self._response = response
        self._url = url
        length = response.headers.get("content-length")
        self.expected_bytes: int | None = int(length) if length and length.isdigit() else None

    def __repr__(self) -> str:
        return f"ReportStream(url={redact_url(self._url, keep_query=False)!r}, expected_bytes={self.expected_bytes})"

    def iter_bytes(self) -> Iterator[bytes]:
        received = 0
        try:
            for chunk in self._response.iter_bytes():
                received += len(chunk)
                yield chunk
        except httpx.TransportError:
            # httpx also lands here when the body ends short of Content-Length.
            raise TruncatedDownload(url=self._url, expected=self.expected_bytes, received=received) from None
        if self.expected_bytes is not None and received < self.expected_bytes:
            raise TruncatedDownload(url=self._url, expected=self.expected_bytes, received=received)


def fetch_report_metadata(client: ServiceClient, ref: ReportRef) -> ReportMetadata | None:
    """The report's links and date range; None when the day is not available yet (204/404).

    A 28-day ``latest`` report always exists for a valid scope, so its 404 (an unknown org or
    enterprise) is raised as NotFound instead.
    """
    path = client.dialect.report_path(scope=ref.scope, scope_name=ref.scope_name, kind=ref.kind, level=ref.level)
    params = {"day": ref.day.isoformat()} if ref.day is not None else None
    try:
        # Never conditional: links are short-lived and a 304 would hand back expired ones.
        answer = client.get(path=path, params=params, conditional=False)
    except NotFound:
        if ref.kind == "1-day":
            return None
        raise
    body = answer.json()
    if body is None:
        return None
    try:
        links = tuple(str(link) for link in body["download_links"])
        if ref.kind == "1-day":
            start = end = date.fromisoformat(body["report_day"])
        else:
            start = date.fromisoformat(body["report_start_day"])
            end = date.fromisoformat(body["report_end_day"])
    except (KeyError, TypeError, ValueError) as exc:
        problem = f"{type(exc).__name__}: {exc}"
        raise ServiceError(f"GET {client.base_url}{path}: unexpected report metadata ({problem})") from None
    return ReportMetadata(ref=ref, start_day=start, end_day=end, links=links, served_at=answer.served_at)


@contextmanager
def open_report_file(client: ServiceClient, link: str) -> Iterator[ReportStream]:
    """Stream one signed link; raises LinkExpired or TruncatedDownload (see the contract)."""
    with client.open_link(url=link) as response:
        yield ReportStream(response=response, url=link)
