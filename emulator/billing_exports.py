"""Usage report exports of an enterprise (`…/settings/billing/reports`): a request for a report
of up to 31 days answers 202 `processing`; asking for it again finds it `completed`, with a
signed link (as the usage reports' links are signed) to its CSV: one line per user, day, SKU
and model, in the public per-user usage report's columns. A report is the bill as it read
when it was asked for."""

from __future__ import annotations

import asyncio
import csv
import io
import threading
import time
from dataclasses import dataclass
from datetime import date
from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from emulator.answers import json_body, message, principal_of
from emulator.billing_admin import settings_prefix
from emulator.billing_answers import billing_denied, billing_json
from emulator.billing_centers import uuid_of
from emulator.billing_ledger import Ledger, Scope
from emulator.billing_world import METERS
from emulator.crypto import link_signature, link_signature_ok
from emulator.reports import DEFAULT_LINK_TTL_SECONDS
from emulator.state import EmulatorState

MAX_DAYS = 31
CSV_COLUMNS = (
    "date",
    "username",
    "product",
    "sku",
    "model",
    "quantity",
    "unit_type",
    "applied_cost_per_quantity",
    "gross_amount",
    "discount_amount",
    "net_amount",
    "exceeds_quota",
    "total_monthly_quota",
    "organization",
    "cost_center_name",
)


@dataclass
class Export:
    id: str
    enterprise: str
    report_type: str
    start: date
    end: date
    created_at: str
    actor: str
    content: bytes

    def record(self, status: str, links: list[str]) -> dict[str, Any]:
        return {
            "id": self.id,
            "report_type": self.report_type,
            "start_date": self.start.isoformat(),
            "end_date": self.end.isoformat(),
            "status": status,
            "download_urls": links,
            "created_at": self.created_at,
            "actor": self.actor,
        }


class BillingExports:
    def __init__(self, state: EmulatorState, ledger: Ledger) -> None:
        self.state = state
        self.ledger = ledger
        self._lock = threading.Lock()
        self._exports: dict[str, Export] = {}

    def table(self) -> list[Route]:
        prefix = settings_prefix(self.state.config.dialect)
        return [
            Route(f"{prefix}/reports", self.list_exports, methods=["GET"]),
            Route(f"{prefix}/reports", self.create, methods=["POST"]),
            Route(f"{prefix}/reports/{{report_id}}", self.one),
            Route("/_downloads/billing/{report_id}/{file}", self.download),
        ]

    def _scope(self, request: Request) -> Scope | Response:
        if problem := billing_denied(request, self.state):
            return problem
        scope = self.ledger.scope("enterprise", request.path_params["name"])
        return scope if scope is not None else message(404, "Not Found")

    def csv_text(self, scope: Scope, report_type: str, start: date, end: date) -> bytes:
        meter = METERS[report_type]
        centers = scope.centers
        name = self.state.wire.record_name
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(CSV_COLUMNS)
        for line in self.ledger.lines(scope, start, end):
            if line.meter is not meter:
                continue
            gross, discount, net = line.amounts()
            center = centers.center_of(line) if centers else None
            writer.writerow(
                (
                    line.day.isoformat(),
                    line.login,
                    name(line.product),
                    name(line.sku),
                    line.model,
                    line.gross,
                    meter.unit_type,
                    meter.price,
                    gross,
                    discount,
                    net,
                    "true" if net > 0 else "false",
                    meter.allowance,
                    line.org,
                    center.name if center else "",
                )
            )
        return out.getvalue().encode()

    async def create(self, request: Request) -> Response:
        scope = self._scope(request)
        if isinstance(scope, Response):
            return scope
        body = await json_body(request)
        if isinstance(body, Response):
            return body
        report_type = body.get("report_type")
        if report_type not in METERS:
            return message(422, f"report_type must be one of {', '.join(sorted(METERS))}")
        try:
            start, end = date.fromisoformat(str(body["start_date"])), date.fromisoformat(str(body["end_date"]))
        except (KeyError, ValueError):
            return message(422, "start_date and end_date are required, as YYYY-MM-DD")
        if not 0 <= (end - start).days < MAX_DAYS:
            return message(422, f"end_date must be on or after start_date, at most {MAX_DAYS} days in all")
        principal = principal_of(request)
        actor = principal.account.login if principal.account else self.state.bot.login
        content = await asyncio.to_thread(self.csv_text, scope, report_type, start, end)
        with self._lock:
            number = len(self._exports) + 1
            export = Export(
                id=uuid_of(self.state.config.seed, "export", number),
                enterprise=scope.name,
                report_type=report_type,
                start=start,
                end=end,
                created_at=self.state.now().strftime("%Y-%m-%dT%H:%M:%SZ"),
                actor=actor,
                content=content,
            )
            self._exports[export.id] = export
        return billing_json(request, self.state, export.record("processing", []), status=202)

    def _state(self, request: Request, export: Export) -> dict[str, Any]:
        """A report asked for again is ready: completed, with its signed link."""
        return export.record("completed", [self._link(request, export)])

    def _link(self, request: Request, export: Export) -> str:
        ttl = self.state.faults.link_ttl_seconds or DEFAULT_LINK_TTL_SECONDS
        expires = int(time.time()) + ttl
        path = f"/_downloads/billing/{export.id}/usage-report.csv"
        signature = link_signature(secret=self.state.link_key, path=path, expires=expires)
        return f"{str(request.base_url).rstrip('/')}{path}?expires={expires}&signature={signature}"

    async def list_exports(self, request: Request) -> Response:
        scope = self._scope(request)
        if isinstance(scope, Response):
            return scope
        with self._lock:
            mine = [e for e in self._exports.values() if e.enterprise == scope.name]
        return billing_json(request, self.state, {"usage_report_exports": [self._state(request, e) for e in mine]})

    async def one(self, request: Request) -> Response:
        scope = self._scope(request)
        if isinstance(scope, Response):
            return scope
        with self._lock:
            export = self._exports.get(request.path_params["report_id"])
        if export is None or export.enterprise != scope.name:
            return message(404, "Not Found")
        return billing_json(request, self.state, self._state(request, export))

    async def download(self, request: Request) -> Response:
        try:
            expires = int(request.query_params.get("expires", ""))
        except ValueError:
            return message(403, "Request has an invalid signature")
        signature = request.query_params.get("signature", "")
        if not link_signature_ok(
            secret=self.state.link_key, path=request.url.path, expires=expires, signature=signature
        ):
            return message(403, "Request has an invalid signature")
        if expires < time.time():
            return message(403, "Request has expired")
        with self._lock:
            export = self._exports.get(request.path_params["report_id"])
        if export is None:
            return message(404, "Not Found")
        return Response(export.content, media_type="text/csv; charset=utf-8")
