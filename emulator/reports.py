"""Usage-metrics report metadata, signed download links and the download of the NDJSON files they
serve (emulator/report_contents.py makes them; emulator/report_files.py sends them)."""

from __future__ import annotations

import tempfile
import threading
import time
from collections import OrderedDict
from datetime import date, timedelta
from functools import partial
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from emulator.crypto import link_signature, link_signature_ok
from emulator.report_contents import ReportContents
from emulator.report_files import FileResponse, ReportFile, batched
from emulator.report_keys import REPORT_NAMES, REPOS_LEVEL, ReportKey
from emulator.reportdata import ReportData
from emulator.state import EmulatorState

DEFAULT_LINK_TTL_SECONDS = 3600
_MEMORY_CACHE_MAX_BYTES = 1 << 20
_MEMORY_CACHE_FILES = 32


def _message(status: int, message: str) -> JSONResponse:
    return JSONResponse({"message": message}, status_code=status)


class Reports:
    def __init__(self, state: EmulatorState) -> None:
        self.state = state
        config = state.config
        first_day = self._first_day(state.today())
        # The first organization and the first enterprise share one ReportData (the enterprise
        # holds that organization's users); every further scope has users of its own.
        same = {"first_day": first_day, "dialect": config.dialect, "cloud_agent_from": config.cloud_agent_from}
        self.data = ReportData(
            seed=config.seed, users=config.users, org=config.primary_org, enterprise=config.primary_enterprise, **same
        )
        self._scopes: dict[tuple[str, str], tuple[str, ReportData]] = {
            ("organization", config.primary_org.lower()): (config.primary_org, self.data),
            ("enterprise", config.primary_enterprise.lower()): (config.primary_enterprise, self.data),
        }
        for n, name in enumerate(config.orgs[1:], start=1):
            self._scopes[("organization", name.lower())] = (
                name,
                ReportData(
                    seed=config.seed + 7919 * n,
                    users=config.users,
                    org=name,
                    enterprise=config.primary_enterprise,
                    **same,
                ),
            )
        for n, name in enumerate(config.enterprises[1:], start=1):
            self._scopes[("enterprise", name.lower())] = (
                name,
                ReportData(
                    seed=config.seed + 104_729 * n, users=config.users, org=f"{name}-org", enterprise=name, **same
                ),
            )
        # Another enterprise with its own id and numbers, for the public multi-entity example.
        second = (
            ReportData(
                seed=config.seed + 1,
                users=config.users,
                org=f"{config.primary_org}-partner",
                enterprise=f"{config.primary_enterprise}-partner",
                **same,
            )
            if config.second_enterprise_in_28_day
            else None
        )
        self._report_file = ReportFile(config.report_file, config.user_lines_per_file) if config.report_file else None
        self._memory: OrderedDict[tuple[str, int], bytes] = OrderedDict()
        self._lock = threading.Lock()
        self.contents = ReportContents(state, data_for=self.data_for, report_file=self._report_file, second=second)

    def _first_day(self, today: date) -> date:
        return today - timedelta(days=self.state.config.history_days)

    def data_for(self, scope: str, name: str) -> ReportData | None:
        found = self._scopes.get((scope, name.lower()))
        return found[1] if found else None

    # metadata
    def metadata(self, request: Request, *, scope: str, name: str, report: str) -> Response:
        state = self.state
        level_kind = REPORT_NAMES[scope].get(report)
        found = self._scopes.get((scope, name.lower()))
        if level_kind is None or found is None:
            return _message(404, "Not Found")
        name = found[0]
        principal = request.scope["emulator.principal"]
        if principal.kind == "anonymous":
            return _message(401, "Requires authentication")
        if not (principal.owner or principal.metrics_permission):
            role = "an organization owner" if scope == "organization" else "an enterprise owner or billing manager"
            return _message(
                403,
                f"Resource not accessible: you must be {role} or hold the "
                f"{state.wire.product} metrics permission for {scope} {name}",
            )
        if not state.policies.get((scope, name), False):
            return _message(403, f"The {state.wire.product} metrics policy is disabled for {scope} {name}")
        level, kind = level_kind
        today = state.today()
        if kind == "1-day":
            raw = request.query_params.get("day")
            try:
                day = date.fromisoformat(raw or "")
            except ValueError:
                return _message(400, "Query parameter 'day' must be a date in YYYY-MM-DD form")
            served_file = (
                self._report_file is not None
                and scope == "organization"
                and level == state.config.report_file_level
                and name == state.config.primary_org
                and day == state.config.report_file_day
            )
            repos_from = state.config.repos_from
            before_repos = level == REPOS_LEVEL and repos_from is not None and day < repos_from
            if not served_file:
                if day >= today or before_repos:
                    if scope == "organization":
                        return Response(status_code=204)
                    return _message(404, f"No report is available yet for {day.isoformat()}")
                if day < self._first_day(today):
                    return _message(404, f"No report exists for {day.isoformat()}")
        else:
            day = today - timedelta(days=1)
        counter = f"{scope} {name} {level} {kind} {day.isoformat()}"
        with state.lock:
            state.metadata_fetches[counter] += 1
            fetch_no = state.metadata_fetches[counter]
        key = ReportKey(scope=scope, name=name, level=level, kind=kind, day=day, fetch_no=fetch_no, today=today)
        links = [self._link(request, key, index) for index in range(self.contents.file_count(key))]
        if kind == "1-day":
            return JSONResponse({"download_links": links, "report_day": day.isoformat()})
        days = key.days()
        return JSONResponse(
            {"download_links": links, "report_start_day": days[0].isoformat(), "report_end_day": days[-1].isoformat()}
        )

    def _link(self, request: Request, key: ReportKey, index: int) -> str:
        ttl = self.state.faults.link_ttl_seconds or DEFAULT_LINK_TTL_SECONDS
        expires = int(time.time()) + ttl
        path = f"/_downloads/{key.text()}/{index}.ndjson"
        signature = link_signature(secret=self.state.link_key, path=path, expires=expires)
        base = str(request.base_url).rstrip("/")
        return f"{base}{path}?expires={expires}&signature={signature}"

    # downloads
    def download(self, request: Request, *, key_text: str, file_name: str) -> Response:
        path = request.url.path
        try:
            expires = int(request.query_params.get("expires", ""))
        except ValueError:
            return _message(403, "Request has an invalid signature")
        signature = request.query_params.get("signature", "")
        if not link_signature_ok(secret=self.state.link_key, path=path, expires=expires, signature=signature):
            return _message(403, "Request has an invalid signature")
        if expires < time.time():
            return _message(403, "Request has expired")
        key = ReportKey.parse(key_text)
        index_text = file_name.removesuffix(".ndjson")
        if key is None or not index_text.isdigit() or int(index_text) >= self.contents.file_count(key):
            return _message(404, "Not Found")
        truncate = self.state.draw(self.state.faults.truncate_rate)
        if truncate:
            self.state.count_fault("truncate")
        return FileResponse(partial(self.spool, key, int(index_text)), truncate=truncate)

    def spool(self, key: ReportKey, index: int) -> tuple[bytes | None, Any]:
        """Generate one file once: small files come back as bytes, big ones as a temp file."""
        cache_key = (key.text(), index)
        with self._lock:
            if cache_key in self._memory:
                self._memory.move_to_end(cache_key)
                return self._memory[cache_key], None
        spooled = tempfile.TemporaryFile()  # noqa: SIM115 (a big file is handed to the response, which closes it)
        for chunk in batched(self.contents.lines(key, index)):
            spooled.write(chunk)
        size = spooled.tell()
        if size <= _MEMORY_CACHE_MAX_BYTES:
            spooled.seek(0)
            data = spooled.read()
            spooled.close()
            with self._lock:
                self._memory[cache_key] = data
                while len(self._memory) > _MEMORY_CACHE_FILES:
                    self._memory.popitem(last=False)
            return data, None
        spooled.seek(0)
        return None, spooled
