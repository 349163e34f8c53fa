"""A proxy between the pipeline and a loopback emulator for the billing tests: every request goes
on to the emulator, and a test changes the answer on its way back (its body, its headers) as a
hostile service or a proxy in between would."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import date
from typing import Any

import duckdb
import httpx

from emulator import EmulatorConfig, RunningEmulator, running_emulator
from pipelines.ingest.billing import BillingResult, ingest_billing
from pipelines.service import RetryPolicy, ServiceClient
from tests._emulator import settings_for

__all__ = ["FAST", "Change", "Proxy", "proxied"]

FAST = RetryPolicy(max_attempts=2, backoff_initial=0.01, backoff_max=0.02)
# What a test does to one answer: the request it answers, and the emulator's answer (decoded).
Change = Callable[[httpx.Request, httpx.Response], httpx.Response]


def _same(request: httpx.Request, answer: httpx.Response) -> httpx.Response:
    return answer


@dataclass
class Proxy:
    """A running emulator behind the proxy, its control client, and the change applied now."""

    emu: RunningEmulator
    upstream: httpx.Client
    change: Change = _same
    said: list[str] = field(default_factory=list)

    @property
    def enterprise(self) -> str:
        return str(self.emu.credentials["enterprise"])

    def _forward(self, request: httpx.Request) -> httpx.Response:
        up = self.upstream.send(
            self.upstream.build_request(
                request.method, str(request.url), headers=request.headers, content=request.content
            )
        )
        # The body is decoded already: its length and encoding headers would lie.
        headers = {k: v for k, v in up.headers.items() if k.lower() not in ("content-length", "content-encoding")}
        return self.change(request, httpx.Response(up.status_code, headers=headers, content=up.content))

    def set_today(self, today: date) -> None:
        self.upstream.post("/_emulator/clock", json={"today": today.isoformat()}).raise_for_status()

    def bill(self, month: date) -> dict[str, Any]:
        """The emulator's bill of the enterprise's month (its totals and whether it closed)."""
        params: dict[str, str | int] = {
            "scope": "enterprise",
            "name": self.enterprise,
            "year": month.year,
            "month": month.month,
        }
        answer = self.upstream.get("/_emulator/billing", params=params)
        answer.raise_for_status()
        return dict(answer.json())

    def ingest(self, conn: duckdb.DuckDBPyConnection, *, months: int) -> BillingResult:
        """One billing run of the enterprise through the proxy."""
        config = settings_for(self.emu).service_config()
        with ServiceClient(config=config, transport=httpx.MockTransport(self._forward), retry=FAST) as client:
            return ingest_billing(
                client, conn, scopes=[("enterprise", self.enterprise)], months=months, say=self.said.append
            )


@contextmanager
def proxied(today: date) -> Iterator[Proxy]:
    """An emulator (github dialect, seed 7, 12 users) on `today` behind the proxy."""
    config = EmulatorConfig(dialect="github", seed=7, users=12, repos=2, today=today)
    with running_emulator(config) as emu, httpx.Client(base_url=emu.base_url) as upstream:
        yield Proxy(emu, upstream)
