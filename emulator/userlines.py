"""The user-level lines of the usage reports: one NDJSON line per user and day, written from the
user's day (emulator/userday.py) in the shapes of emulator/recordjson.py."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from datetime import date

from emulator.dayrecord import UserDay
from emulator.errors import EmulatorError
from emulator.population import Population
from emulator.recordjson import (
    AGENT_ENTRY,
    CLI_VERSION,
    COMPACT,
    COUNTS,
    EMPTY_BREAKDOWNS,
    FLAGS,
    IDE_ENTRY,
    JSON_BOOL,
    NO_MODEL_FEATURES,
    app_dict,
    cli_json,
    customization_json,
    user_breakdowns,
    user_fields_format,
    vscode_dict,
)
from emulator.userday import UserDays
from emulator.vocabulary import CREDITS, IDES, PHASE_LABELS

_REVIEW_JSON = {(True, False): ("true", "false"), (False, True): ("false", "true"), (False, False): ("null", "null")}


def feature_credits(d: UserDay) -> Iterator[tuple[str, float]]:
    """(model, AI credits) of each model-bearing feature of a user-day, in the day's order: their
    sum is the line's `ai_credits_used`, and the bill (emulator/billing_world.py) is made from them."""
    for f, model, rows in d.features:
        if f not in NO_MODEL_FEATURES:
            yield model, sum(row[0] for row in rows) * CREDITS[model]


class UserLines:
    """The user-level lines of a population."""

    def __init__(self, people: Population, days: UserDays) -> None:
        self.people = people
        self.days = days
        self._user_fields = user_fields_format(people.name)

    def lines(
        self, *, scope: str, days: Sequence[date], completeness_for: Callable[[date], float], start: int, stop: int
    ) -> Iterator[bytes]:
        size = self.people.scope_size(scope)
        if not 0 <= start <= stop <= size:
            raise EmulatorError(f"user range [{start}, {stop}) outside 0..{size}")
        ids = "".join(f'"{name}":"{value}",' for name, value in self.people.ids(scope).items())
        for day in days:
            c = float(completeness_for(day))
            prefix = f'","day":"{day.isoformat()}",{ids}'
            internal = self.people.internal_user_fields(day)
            for u in range(start, stop):
                yield self._user_line(u, day, c, prefix, internal).encode()

    def _surface_fields(self, d: UserDay, day: date, phase: int) -> str:
        # The former "coding agent" flag is sent beside the cloud agent's, with the same value.
        cloud = JSON_BOOL[d.cloud_agent]
        text = (
            f',"{self.people.name("used_assistant_coding_agent")}":{cloud}'
            + (f',"{self.people.name("used_assistant_cloud_agent")}":{cloud}' if self.people.renamed(day) else "")
            + f',"{self.people.name("used_assistant_app")}":{JSON_BOOL[d.app]}'
            f',"used_vscode_agent":{JSON_BOOL[d.vscode_agent]}'
            f',"ai_adoption_phase":{{"phase":"{PHASE_LABELS[phase]}","phase_number":{phase},"version":"v1"}}'
        )
        if d.app_counts is not None:
            app = json.dumps(app_dict(d.app_counts), separators=COMPACT)
            text += f',"{self.people.name("totals_by_assistant_app")}":{app}'
        if d.vscode_counts is not None:
            text += ',"totals_by_vscode_agent":' + json.dumps(vscode_dict(d.vscode_counts), separators=COMPACT)
        return text

    def _user_line(self, u: int, day: date, c: float, prefix: str, internal: str) -> str:
        p = self.people.profile(u)
        d = self.days.user_day(u, day, c)
        credits = sum(credit for _, credit in feature_credits(d))
        # Code review flags: null without a review signal that day, as documented.
        review = _REVIEW_JSON[d.review_active, d.review_passive]
        head = (
            f'{{"user_id":{p.user_id},"user_login":"{p.login}{prefix}'
            + COUNTS % tuple(d.totals)
            + FLAGS[d.used_agent, d.used_chat, d.used_cli]
            + self._user_fields % (round(credits, 2), *review)
            + self._surface_fields(d, day, self.people.phase(u, day))
        )
        if not d.feature_rows and not d.active:
            return head + EMPTY_BREAKDOWNS + internal + "}\n"
        i, sampled = p.ides.index(d.ide), day.isoformat() + p.sampled_time
        parts = [  # the desktop app or CLI only: its one feature entry, no IDE, language or model
            head,
            IDE_ENTRY
            % (
                d.ide,
                COUNTS % tuple(d.ide_totals),
                p.ide_versions[i],
                sampled,
                IDES[d.ide][2],
                p.plugin_version,
                sampled,
            )
            if d.active
            else ',"totals_by_ide":[]',
            user_breakdowns(d.languages, d.features, d.feature_rows),
        ]
        if d.cli is not None:
            parts.append(',"totals_by_cli":' + cli_json(d.cli)[:-1] + CLI_VERSION % (p.cli_version, sampled) + "}")
        if d.agents:
            parts.append(
                ',"totals_by_3rd_party_agent":['
                + ",".join(AGENT_ENTRY % (a, self.people.agent_name(a, day), j) for a, j, _ in d.agents)
                + "]"
            )
        if d.customizations is not None:
            distinct = {category: len(used) for category, used in d.customizations.items()}
            parts.append(customization_json(d.customizations, distinct=distinct))
        parts.append(internal)
        parts.append("}\n")
        return "".join(parts)
