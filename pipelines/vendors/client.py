"""The HTTP client of one vendor: its credentials, retries as small policies (``_retry.py``),
each error answer one line (``errors.py``), and the vendor's clock (its answers' Date header),
on which a day's finality is judged. Sleep and transport are injectable, so tests drive every
wait and every answer by hand."""

from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal
from email.utils import parsedate_to_datetime
from typing import Any

import httpx

from pipelines.vendors._body import TooLarge, TooSlow, read_body
from pipelines.vendors._retry import RetryPolicy
from pipelines.vendors._secret import redact, redact_json
from pipelines.vendors.config import VendorConfig
from pipelines.vendors.errors import (
    Denied,
    Malformed,
    RateLimited,
    RequestFailed,
    ServerError,
    TransportFailed,
    Unreachable,
    VendorError,
)

__all__ = ["Answer", "VendorClient"]

_USER_AGENT = "metrics-etl/0.1"
_SAID_LIMIT = 200  # characters of the vendor's own message kept in a line


@dataclass(frozen=True)
class Answer:
    body: Any  # the decoded JSON
    served_at: datetime | None  # the vendor's clock (Date header), None when it sent none


class VendorClient:
    """One session with a vendor; use as a context manager."""

    def __init__(
        self,
        config: VendorConfig,
        *,
        transport: httpx.BaseTransport | None = None,
        sleep: Callable[[float], None] = time.sleep,
        retry: RetryPolicy | None = None,
    ) -> None:
        self.config = config
        self.vendor = config.vendor
        self._sleep = sleep
        self._retry = retry or RetryPolicy()
        self.calls = 0
        self.retries: Counter[str] = Counter()
        self._http = httpx.Client(
            base_url=config.base_url,
            auth=config.auth,
            transport=transport,
            timeout=config.timeout,
            headers={"Accept": "application/json", "User-Agent": _USER_AGENT},
        )

    def __enter__(self) -> VendorClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self._http.close()

    def get(self, path: str, params: Mapping[str, Any] | None = None) -> Answer:
        return self._request("GET", path, params=dict(params or {}))

    def post(self, path: str, body: Mapping[str, Any]) -> Answer:
        """A read sent as POST (Cursor's reports take their window in a JSON body)."""
        return self._request("POST", path, json=dict(body))

    def _request(self, method: str, path: str, **kwargs: Any) -> Answer:
        retrying = self._retry.retrying(sleep=self._sleep, max_wait=self.config.max_wait, on_retry=self._retried)
        answer: Answer = retrying(self._once, method, path, **kwargs)
        return answer

    def _retried(self, kind: str, wait: float) -> None:
        self.retries[kind] += 1

    def _once(self, method: str, path: str, **kwargs: Any) -> Answer:
        title, config = self.vendor.title, self.config
        self.calls += 1
        deadline = time.monotonic() + config.timeout  # the whole answer's, each read bounded by httpx's too
        try:
            response = self._http.send(self._http.build_request(method, path, **kwargs), stream=True)
            try:
                content = read_body(response, max_bytes=config.max_bytes, deadline=deadline)
            finally:
                response.close()
        except httpx.ConnectError as exc:
            raise Unreachable(
                title, f"no answer from {config.base_url} ({_plain(exc)}): is {config.url_setting} right?"
            ) from None
        except httpx.TransportError as exc:
            raise TransportFailed(title, f"{method} {path}: the connection failed ({_plain(exc)})") from None
        except TooSlow:
            raise TransportFailed(
                title, f"{method} {path}: the answer was not whole within {config.timeout:g}s"
            ) from None
        except TooLarge:
            raise Malformed(
                title, f"{method} {path} answered more than {config.max_bytes:,} bytes: no page of it is that long"
            ) from None
        if response.status_code >= 400:
            raise self._failure(method, path, response, content)
        try:
            # Money exact: every non-integer number a Decimal, never a float. A key the vendor
            # echoes in a record is redacted before anything of it is kept.
            body = redact_json(json.loads(content, parse_float=Decimal))
        except (ValueError, RecursionError):
            raise Malformed(
                title, f"{method} {path} answered {response.status_code} with a body that is not JSON"
            ) from None
        return Answer(body, _served_at(response))

    def _failure(self, method: str, path: str, response: httpx.Response, content: bytes) -> VendorError:
        title, status, said = self.vendor.title, response.status_code, _said(response, content)
        place = f"{method} {path} answered {status} {said}".rstrip()
        if status == 401:
            return Denied(
                title,
                f"the key in {self.config.key_setting} was refused ({status} {said}): set it to "
                f"{self.vendor.key_advice}",
                status=status,
                said=said,
            )
        if status == 403:
            return Denied(
                title,
                f"the key in {self.config.key_setting} may not read {path} ({status} {said}): it needs to be "
                f"{self.vendor.key_advice}",
                status=status,
                said=said,
            )
        if status == 429:
            return RateLimited(
                title, f"{place} (rate limited)", status=status, said=said, retry_after=_seconds(response)
            )
        if status >= 500:
            return ServerError(title, place, status=status, said=said)
        return RequestFailed(title, place, status=status, said=said)


def _plain(exc: Exception) -> str:
    """httpx's message (an illegal header's is its value: redacted like every quote)."""
    return redact(str(exc)) or type(exc).__name__


def _said(response: httpx.Response, content: bytes) -> str:
    """The vendor's own message, redacted: Anthropic's `error.message`, Cursor's `message` (or `error`)."""
    try:
        body = json.loads(content)
    except (ValueError, RecursionError):
        return response.reason_phrase
    if isinstance(body, dict):
        inner = body.get("error")
        for text in (inner.get("message") if isinstance(inner, dict) else None, body.get("message"), inner):
            if isinstance(text, str) and text:
                return redact(text)[:_SAID_LIMIT]
    return response.reason_phrase


def _seconds(response: httpx.Response) -> float | None:
    value = response.headers.get("retry-after", "")
    try:
        return max(0.0, float(value))
    except ValueError:
        return None


def _served_at(response: httpx.Response) -> datetime | None:
    value = response.headers.get("date")
    if not value:
        return None
    try:
        served = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return served.astimezone(UTC) if served.tzinfo else served.replace(tzinfo=UTC)
