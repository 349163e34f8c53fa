"""Usage report exports of an enterprise: ask for one (`POST …/billing/reports`), wait until
it is done, and find its signed CSV links (docs/billing.md).

An export covers at most `MAX_EXPORT_DAYS` days. Waiting polls its status a bounded number of
times, backing off as the client's retry policy does (`RetryPolicy.backoff_initial` doubling up
to `backoff_max`); an export the service says `failed`, or one still processing after the last
poll, raises ExportNotReady naming it and what to do.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import date
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from pipelines.service._retry import RetryPolicy
from pipelines.service.billing_wire import Dialect, billing_path
from pipelines.service.errors import MalformedResponse, ServiceError

if TYPE_CHECKING:
    from pipelines.service.client import ServiceClient

__all__ = ["MAX_EXPORT_DAYS", "Export", "ExportNotReady", "get_export", "request_export", "wait_export"]

MAX_EXPORT_DAYS = 31
POLLS = 12  # about six minutes at the default backoff (0.5 s doubling to 30 s)


class ExportNotReady(ServiceError):
    """An export failed, or was still processing after the last poll."""


@dataclass(frozen=True)
class Export:
    id: str
    report_type: str
    start_day: date
    end_day: date
    status: str  # processing | completed | failed
    links: tuple[str, ...]

    def __repr__(self) -> str:
        # The links are signed: show how many, never their queries.
        return (
            f"Export(id={self.id!r}, report_type={self.report_type!r}, start_day={self.start_day}, "
            f"end_day={self.end_day}, status={self.status!r}, links=<{len(self.links)} signed>)"
        )


def _reports_path(client: ServiceClient, enterprise: str, **ids: str) -> str:
    dialect: Dialect = "github" if client.dialect.name == "github" else "service"
    endpoint = "report" if ids else "reports"
    quoted = {key: quote(value, safe="") for key, value in ids.items()}
    return billing_path(dialect, "enterprise", quote(enterprise, safe=""), endpoint, **quoted)


def export_of(body: Any, *, source: str) -> Export:
    """An export from its JSON; MalformedResponse naming what is missing."""
    if not isinstance(body, Mapping):
        raise MalformedResponse(method="GET", url=source, status=200, message="the export is not a JSON object")
    try:
        links = body.get("download_urls") or []
        if not isinstance(links, list) or not all(isinstance(link, str) for link in links):
            raise TypeError("download_urls")
        return Export(
            id=str(body["id"]),
            report_type=str(body["report_type"]),
            start_day=date.fromisoformat(body["start_date"]),
            end_day=date.fromisoformat(body["end_date"]),
            status=str(body["status"]),
            links=tuple(links),
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise MalformedResponse(
            method="GET", url=source, status=200, message=f"the export has no usable {exc.args[0] if exc.args else ''}"
        ) from None


def request_export(
    client: ServiceClient, *, enterprise: str, start_day: date, end_day: date, report_type: str = "ai_credit"
) -> Export:
    """Ask for an export of `start_day..end_day` (at most MAX_EXPORT_DAYS days)."""
    days = (end_day - start_day).days + 1
    if not 1 <= days <= MAX_EXPORT_DAYS:
        raise ValueError(f"an export covers 1 to {MAX_EXPORT_DAYS} days, not {days} ({start_day}..{end_day})")
    path = _reports_path(client, enterprise)
    body = client.post_json(
        path=path,
        json={"report_type": report_type, "start_date": start_day.isoformat(), "end_date": end_day.isoformat()},
    )
    return export_of(body, source=f"{client.base_url}{path}")


def get_export(client: ServiceClient, *, enterprise: str, export_id: str) -> Export:
    path = _reports_path(client, enterprise, report_id=export_id)
    return export_of(client.get_json(path=path, conditional=False), source=f"{client.base_url}{path}")


def wait_export(
    client: ServiceClient,
    export: Export,
    *,
    enterprise: str,
    polls: int = POLLS,
    policy: RetryPolicy | None = None,
    sleep: Callable[[float], None] = time.sleep,
) -> Export:
    """The export once completed, polled at most `polls` times with the retry policy's backoff."""
    policy = policy or RetryPolicy()
    wait = policy.backoff_initial
    for _ in range(polls):
        if export.status == "completed":
            return export
        if export.status == "failed":
            break
        sleep(wait)
        wait = min(policy.backoff_max, wait * 2)
        export = get_export(client, enterprise=enterprise, export_id=export.id)
    if export.status == "completed":
        return export
    days = f"{export.start_day}..{export.end_day}"
    what = f"the {export.report_type} export {export.id} of enterprise {enterprise!r} ({days})"
    if export.status == "failed":
        raise ExportNotReady(f"{what} failed on the service: the next run asks for it again")
    raise ExportNotReady(f"{what} was still {export.status} after {polls} polls: the next run asks for it again")
