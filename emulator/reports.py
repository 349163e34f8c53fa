"""Usage-metrics report metadata, signed download links and the NDJSON files they serve (made
from the report data, or cut from a pre-generated file; emulator/report_files.py sends them)."""

from __future__ import annotations

import copy
import json
import math
import tempfile
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator
from datetime import date, timedelta
from functools import lru_cache, partial
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from emulator.config import RecordDrift
from emulator.crypto import link_signature, link_signature_ok
from emulator.report_files import FileResponse, ReportFile, batched
from emulator.report_keys import REPORT_NAMES, REPOS_LEVEL, TEAMS_LEVEL, ReportKey
from emulator.reportdata import ReportData, completeness
from emulator.repos import RepoRef, repository_lines
from emulator.state import EmulatorState

DEFAULT_LINK_TTL_SECONDS = 3600
_MEMORY_CACHE_MAX_BYTES = 1 << 20
_MEMORY_CACHE_FILES = 32
_FINAL_AFTER_DAYS = 3

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
        self.data = ReportData(seed=config.seed, users=config.users, org=config.primary_org,
                               enterprise=config.primary_enterprise, **same)
        self._scopes: dict[tuple[str, str], tuple[str, ReportData]] = {
            ("organization", config.primary_org.lower()): (config.primary_org, self.data),
            ("enterprise", config.primary_enterprise.lower()): (config.primary_enterprise, self.data),
        }
        for n, name in enumerate(config.orgs[1:], start=1):
            self._scopes[("organization", name.lower())] = (name, ReportData(
                seed=config.seed + 7919 * n, users=config.users, org=name,
                enterprise=config.primary_enterprise, **same))
        for n, name in enumerate(config.enterprises[1:], start=1):
            self._scopes[("enterprise", name.lower())] = (name, ReportData(
                seed=config.seed + 104_729 * n, users=config.users, org=f"{name}-org", enterprise=name, **same))
        # Another enterprise with its own id and numbers, for the public multi-entity example.
        self._second = (ReportData(seed=config.seed + 1, users=config.users, org=f"{config.primary_org}-partner",
                                   enterprise=f"{config.primary_enterprise}-partner", **same)
                        if config.second_enterprise_in_28_day else None)
        self._report_file = (ReportFile(config.report_file, config.user_lines_per_file)
                             if config.report_file else None)
        self._memory: OrderedDict[tuple[str, int], bytes] = OrderedDict()
        self._lock = threading.Lock()
        self._teams_cache = lru_cache(maxsize=16)(self._make_team_lines)

    def _make_team_lines(self, scope: str, name: str, day: date) -> list[bytes]:
        data = self.data_for(scope, name)
        if data is None:  # a signed key names only scopes this emulator serves
            raise KeyError(name)
        return list(data.user_teams_lines(scope=scope, day=day))

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
            return _message(403, f"Resource not accessible: you must be {role} or hold the "
                                 f"{state.wire.product} metrics permission for {scope} {name}")
        if not state.policies.get((scope, name), False):
            return _message(403, f"The {state.wire.product} metrics policy is disabled "
                                 f"for {scope} {name}")
        level, kind = level_kind
        today = state.today()
        if kind == "1-day":
            raw = request.query_params.get("day")
            try:
                day = date.fromisoformat(raw or "")
            except ValueError:
                return _message(400, "Query parameter 'day' must be a date in YYYY-MM-DD form")
            served_file = (self._report_file is not None and scope == "organization"
                           and level == state.config.report_file_level and name == state.config.primary_org
                           and day == state.config.report_file_day)
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
        links = [self._link(request, key, index) for index in range(self._file_count(key))]
        if kind == "1-day":
            return JSONResponse({"download_links": links, "report_day": day.isoformat()})
        days = key.days()
        return JSONResponse({"download_links": links, "report_start_day": days[0].isoformat(),
                             "report_end_day": days[-1].isoformat()})

    def _link(self, request: Request, key: ReportKey, index: int) -> str:
        ttl = self.state.faults.link_ttl_seconds or DEFAULT_LINK_TTL_SECONDS
        expires = int(time.time()) + ttl
        path = f"/_downloads/{key.text()}/{index}.ndjson"
        signature = link_signature(secret=self.state.link_key, path=path, expires=expires)
        base = str(request.base_url).rstrip("/")
        return f"{base}{path}?expires={expires}&signature={signature}"

    def _data(self, key: ReportKey) -> ReportData:
        data = self.data_for(key.scope, key.name)
        if data is None:  # a signed key names only scopes this emulator serves
            raise KeyError(key.name)
        return data

    def _serves_report_file(self, key: ReportKey) -> bool:
        return (self._report_file is not None and key.scope == "organization"
                and key.level == self.state.config.report_file_level and key.name == self.state.config.primary_org
                and key.kind == "1-day" and key.day == self.state.config.report_file_day)

    def _users_per_file(self, key: ReportKey) -> int:
        return max(1, self.state.config.user_lines_per_file // len(key.days()))

    def _file_count(self, key: ReportKey) -> int:
        if self._serves_report_file(key):
            assert self._report_file is not None
            return len(self._report_file.ranges)
        if key.level == "aggregate":
            return 1
        if key.level == TEAMS_LEVEL:
            return max(1, math.ceil(len(self._team_lines(key)) / self.state.config.user_lines_per_file))
        if key.level == REPOS_LEVEL:
            return 1
        users = self._data(key).user_count(scope=key.scope)
        return max(1, math.ceil(users / self._users_per_file(key)))

    def _completeness_for(self, key: ReportKey) -> Callable[[date], float]:
        def _for(day: date) -> float:
            if (key.today - day).days > _FINAL_AFTER_DAYS:
                return 1.0
            return completeness(day=day, today=key.today, fetch_no=key.fetch_no)
        return _for

    def _team_lines(self, key: ReportKey) -> list[bytes]:
        """The user-teams report of a day: membership does not grow with fetches, so every
        version of a day has the same lines."""
        return self._teams_cache(key.scope, key.name, key.day)

    def _repository_lines(self, key: ReportKey, complete: float) -> list[bytes]:
        """The repos-1-day report: the world's repositories of the organization, its aggregate
        record's pull requests split among those active that day. An enterprise's is the union
        of its organizations' repositories, each line the repository's own figures (its
        organization's line): here the first organization's, as `{org}-labs` has none."""
        config, data = self.state.config, self._data(key)
        org = key.name if key.scope == "organization" else config.primary_org
        repos = [] if key.scope == "enterprise" and key.name != config.primary_enterprise else [
            RepoRef(r.id, r.owner.login, r.name, r.visibility.upper())  # PRIVATE, INTERNAL, PUBLIC
            for r in self.state.world.org_repos(org)
        ]
        record = data.aggregate_record(scope="organization", day=key.day, completeness=complete)
        return repository_lines(
            seed=config.seed, day=key.day, repos=repos, pull_requests=record["pull_requests"],
            ids={"enterprise_id": data.enterprise_id, "organization_id": data.organization_id},
            name=self.state.wire.record_name,
            review_times=config.review_times_from is None or key.day >= config.review_times_from,
        )

    def _lines(self, key: ReportKey, index: int) -> Iterator[bytes]:
        if self._serves_report_file(key):
            assert self._report_file is not None
            yield from self._report_file.chunks(index)
            return
        completeness_for = self._completeness_for(key)
        if key.level == "aggregate":
            if key.kind == "1-day":
                record = self._data(key).aggregate_record(scope=key.scope, day=key.day,
                                                    completeness=completeness_for(key.day))
            else:
                record = self._data(key).aggregate_28_day(scope=key.scope, end_day=key.day,
                                                    completeness_for=completeness_for)
            drift = self.state.config.record_drift
            if drift != RecordDrift():
                record = drift.apply(copy.deepcopy(record), user_index=None)
            yield json.dumps(record, separators=(",", ":")).encode() + b"\n"
            if key.kind == "28-day" and key.scope == "enterprise" and self._second is not None:
                second = self._second.aggregate_28_day(scope="enterprise", end_day=key.day,
                                                       completeness_for=completeness_for)
                yield json.dumps(second, separators=(",", ":")).encode() + b"\n"
            return
        if key.level == TEAMS_LEVEL:
            per_file = self.state.config.user_lines_per_file
            yield from self._team_lines(key)[index * per_file:(index + 1) * per_file]
            return
        if key.level == REPOS_LEVEL:
            yield from self._repository_lines(key, completeness_for(key.day))
            return
        per_file = self._users_per_file(key)
        start = index * per_file
        data = self._data(key)
        stop = min(start + per_file, data.user_count(scope=key.scope))
        drift = self.state.config.record_drift
        lines = data.user_lines(scope=key.scope, days=key.days(), completeness_for=completeness_for,
                                start=start, stop=stop)
        for number, line in enumerate(lines, start=start):
            if drift != RecordDrift():
                line = json.dumps(drift.apply(json.loads(line), user_index=number), separators=(",", ":")).encode()
            yield line if line.endswith(b"\n") else line + b"\n"

    # downloads
    def download(self, request: Request, *, key_text: str, file_name: str) -> Response:
        path = request.url.path
        try:
            expires = int(request.query_params.get("expires", ""))
        except ValueError:
            return _message(403, "Request has an invalid signature")
        signature = request.query_params.get("signature", "")
        if not link_signature_ok(secret=self.state.link_key, path=path, expires=expires,
                                 signature=signature):
            return _message(403, "Request has an invalid signature")
        if expires < time.time():
            return _message(403, "Request has expired")
        key = ReportKey.parse(key_text)
        index_text = file_name.removesuffix(".ndjson")
        if key is None or not index_text.isdigit() or int(index_text) >= self._file_count(key):
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
        for chunk in batched(self._lines(key, index)):
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


