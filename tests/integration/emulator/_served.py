"""An emulator started for a module's tests, its reports fetched over HTTP, and the report data it
serves (built again from the same settings: for what only the service knows, such as who it
confirmed active server-side or what it misattributed)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any

import httpx

from emulator import EmulatorConfig, running_emulator
from emulator.dialect import wire_for
from emulator.reportdata import ReportData


@dataclass
class Served:
    client: httpx.Client
    product: str
    data: ReportData
    name: Any  # a service record name -> the dialect's

    def report(self, scope: str, report: str, day: date) -> list[dict[str, Any]]:
        """The lines of a 1-day report (`report` as in its path), [] when the day has none."""
        owner = "orgs/acme" if scope == "organization" else "enterprises/acme-corp"
        meta = self.client.get(f"/{owner}/{self.product}/metrics/reports/{report}", params={"day": day.isoformat()})
        if meta.status_code in (204, 404):
            return []
        assert meta.status_code == 200, (report, day, meta.text)
        return [
            json.loads(line)
            for link in meta.json()["download_links"]
            for line in httpx.get(link, timeout=30).content.splitlines()
        ]

    def aggregate(self, scope: str, day: date) -> dict[str, Any]:
        [record] = self.report(scope, f"{scope}-1-day", day)
        return record


@contextmanager
def served(*, dialect: str, seed: int, users: int, today: date, history_days: int) -> Iterator[Served]:
    config = EmulatorConfig(
        seed=seed, users=users, repos=4, today=today, dialect=dialect, history_days=history_days, rate_limit=1_000_000
    )
    data = ReportData(
        seed=seed,
        users=users,
        org="acme",
        enterprise="acme-corp",
        first_day=today - timedelta(days=history_days),
        dialect=dialect,
    )
    with running_emulator(config) as emu:
        auth = {"Authorization": f"Bearer {emu.credentials['token']}"}
        with httpx.Client(base_url=emu.base_url, timeout=30, headers=auth) as client:
            yield Served(client, wire_for(dialect).product, data, wire_for(dialect).record_name)
