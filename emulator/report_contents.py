"""What the files of a usage-metrics report hold: how many files a report has and the NDJSON
lines of each, made from the report data (or cut from a pre-generated file); emulator/reports.py
serves them."""

from __future__ import annotations

import copy
import json
import math
from collections.abc import Callable, Iterator
from datetime import date
from functools import lru_cache

from emulator.config import RecordDrift
from emulator.report_files import ReportFile
from emulator.report_keys import REPOS_LEVEL, TEAMS_LEVEL, ReportKey
from emulator.reportdata import ReportData, completeness
from emulator.repos import RepoRef, repository_lines
from emulator.state import EmulatorState

_FINAL_AFTER_DAYS = 3


class ReportContents:
    """The files of the reports of the scopes `data_for` knows."""

    def __init__(
        self,
        state: EmulatorState,
        *,
        data_for: Callable[[str, str], ReportData | None],
        report_file: ReportFile | None,
        second: ReportData | None,
    ) -> None:
        self.state = state
        self.data_for = data_for
        self._report_file = report_file
        self._second = second  # the other enterprise of the 28-day report, if any
        self._teams_cache = lru_cache(maxsize=16)(self._make_team_lines)

    def _make_team_lines(self, scope: str, name: str, day: date) -> list[bytes]:
        data = self.data_for(scope, name)
        if data is None:  # a signed key names only scopes this emulator serves
            raise KeyError(name)
        return list(data.user_teams_lines(scope=scope, day=day))

    def _data(self, key: ReportKey) -> ReportData:
        data = self.data_for(key.scope, key.name)
        if data is None:  # a signed key names only scopes this emulator serves
            raise KeyError(key.name)
        return data

    def _serves_report_file(self, key: ReportKey) -> bool:
        return (
            self._report_file is not None
            and key.scope == "organization"
            and key.level == self.state.config.report_file_level
            and key.name == self.state.config.primary_org
            and key.kind == "1-day"
            and key.day == self.state.config.report_file_day
        )

    def _users_per_file(self, key: ReportKey) -> int:
        return max(1, self.state.config.user_lines_per_file // len(key.days()))

    def file_count(self, key: ReportKey) -> int:
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
        repos = (
            []
            if key.scope == "enterprise" and key.name != config.primary_enterprise
            else [
                RepoRef(r.id, r.owner.login, r.name, r.visibility.upper())  # PRIVATE, INTERNAL, PUBLIC
                for r in self.state.world.org_repos(org)
            ]
        )
        record = data.aggregate_record(scope="organization", day=key.day, completeness=complete)
        return repository_lines(
            seed=config.seed,
            day=key.day,
            repos=repos,
            pull_requests=record["pull_requests"],
            ids={"enterprise_id": data.enterprise_id, "organization_id": data.organization_id},
            name=self.state.wire.record_name,
            review_times=config.review_times_from is None or key.day >= config.review_times_from,
        )

    def lines(self, key: ReportKey, index: int) -> Iterator[bytes]:
        if self._serves_report_file(key):
            assert self._report_file is not None
            yield from self._report_file.chunks(index)
            return
        completeness_for = self._completeness_for(key)
        if key.level == "aggregate":
            if key.kind == "1-day":
                record = self._data(key).aggregate_record(
                    scope=key.scope, day=key.day, completeness=completeness_for(key.day)
                )
            else:
                record = self._data(key).aggregate_28_day(
                    scope=key.scope, end_day=key.day, completeness_for=completeness_for
                )
            drift = self.state.config.record_drift
            if drift != RecordDrift():
                record = drift.apply(copy.deepcopy(record), user_index=None)
            yield json.dumps(record, separators=(",", ":")).encode() + b"\n"
            if key.kind == "28-day" and key.scope == "enterprise" and self._second is not None:
                second = self._second.aggregate_28_day(
                    scope="enterprise", end_day=key.day, completeness_for=completeness_for
                )
                yield json.dumps(second, separators=(",", ":")).encode() + b"\n"
            return
        if key.level == TEAMS_LEVEL:
            per_file = self.state.config.user_lines_per_file
            yield from self._team_lines(key)[index * per_file : (index + 1) * per_file]
            return
        if key.level == REPOS_LEVEL:
            yield from self._repository_lines(key, completeness_for(key.day))
            return
        per_file = self._users_per_file(key)
        start = index * per_file
        data = self._data(key)
        stop = min(start + per_file, data.user_count(scope=key.scope))
        drift = self.state.config.record_drift
        lines = data.user_lines(
            scope=key.scope, days=key.days(), completeness_for=completeness_for, start=start, stop=stop
        )
        for number, line in enumerate(lines, start=start):
            if drift != RecordDrift():
                line = json.dumps(drift.apply(json.loads(line), user_index=number), separators=(",", ":")).encode()
            yield line if line.endswith(b"\n") else line + b"\n"
