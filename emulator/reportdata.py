"""Deterministic usage-report data: aggregate and user-level records of the emulated platform.

Every value follows from (seed, scope, day, user index), so any user range of any day can be
generated on its own and the same call always gives the same bytes.

Who is in which scope: the organization holds `users` users (global indices 0 .. users-1,
logins and ids follow the emulator's world: `{org}-admin`, `{org}-member`, `dev-00000`, ...).
The enterprise holds those same users (same numbers on the same day) plus a second
organization, `{org}-labs`, of `max(1, users // 2)` users. A user's activity does not depend on
the scope asking for it; only the id field (`organization_id` or `enterprise_id`) does.

How a user-day is built (all counts are unscaled integers first, then scaled by completeness):
- A per-day byte stream (20 bytes per global user, in blocks of users) decides whether the user was active, used
  chat, agent mode, the CLI and third-party agents, and how much.
- Activity is kept in cells (feature x language); every breakdown array and the top-level
  counts are sums of the scaled cells, so the arrays reconcile with the totals and
  aggregate records are exact sums of the user-level records.
- Third-party agents: several internal apps of one agent are merged into one entry; apps of
  unrecognized agents are used but never reported; an agent is renamed on `rename_day`.
- Seat holders who do not use the assistant: organization users with u % 20 == 19 are never
  active; users with u % 20 == 9 are active often until `lapse_day` (first_day + 15) and never
  after (see NEVER_ACTIVE_* and LAPSED_*).
- Teams (the user-teams report) are derived on the side by emulator/teams.py; they change no
  byte of the other reports.
- What the service's 2026 docs add (users active without IDE activity, the feature entries
  beside the IDE's) is in emulator/telemetry.py; the arrays' shapes in emulator/recordjson.py;
  the documented misattribution windows (a user-day as served) in emulator/misattribution.py.
"""

from __future__ import annotations

import copy
import hashlib
import json
import math
import random
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import date, timedelta
from functools import lru_cache
from typing import Any

from emulator import cli_usage, misattribution, telemetry
from emulator.dialect import wire_for
from emulator.errors import EmulatorError
from emulator.recordjson import (
    AGENT_ENTRY,
    CLI_VERSION,
    COMPACT,
    COUNT_FIELDS,
    COUNTS,
    EMPTY_BREAKDOWNS,
    FLAGS,
    IDE_ENTRY,
    JSON_BOOL,
    NO_MODEL_FEATURES,
    ZEROS,
    add,
    aggregate_breakdowns,
    app_dict,
    cli_dict,
    cli_json,
    column_sums,
    count_dict,
    customization_json,
    user_breakdowns,
    user_fields_format,
    vscode_dict,
)
from emulator.repos import COMMENT_TYPES, combine, split
from emulator.teams import TeamMembership, TeamsModel

SCOPES = ("organization", "enterprise")
# A seat's last activity is kept this many days (older: null), as on the public service.
LAST_ACTIVITY_DAYS = 90

# (agent_id, name before the rename); ids are numeric strings as on the public service.
AGENTS: tuple[tuple[str, str], ...] = (
    ("2246796", "Claude (Anthropic)"),
    ("1850471", "Codex"),
    ("3022817", "Jules (Google)"),
    ("2718281", "Devin (Cognition)"),
    ("1447725", "Amp (Sourcegraph)"),
)
RENAMED_AGENT_ID = "1850471"
RENAMED_AGENT_OLD_NAME = "Codex"
RENAMED_AGENT_NEW_NAME = "Codex (OpenAI)"
# The rename takes effect this many days after first_day: a 60-day history shows both names.
RENAME_OFFSET_DAYS = 30

# Seat holders who do not use the assistant (org users only, by index u): u % 20 == 19 never
# uses it (every record shows no activity); u % 20 == 9 used it often, then stopped for good
# LAPSE_OFFSET_DAYS after first_day (with a 60-day history: no activity in the last 45 days).
NEVER_ACTIVE_EVERY, NEVER_ACTIVE_AT = 20, 19
LAPSED_EVERY, LAPSED_AT = 20, 9
LAPSE_OFFSET_DAYS = 15
_LAPSED_THRESHOLD = 140
_NO_END = date.max.toordinal() + 1

# Internal apps as users start them: several map to one recognized agent (merged in the
# report), some to no recognized agent (dropped from the report).
AGENT_APPS: tuple[tuple[str, str | None], ...] = (
    ("claude-code-action", "2246796"),
    ("claude-for-web", "2246796"),
    ("codex-cloud", "1850471"),
    ("codex-review", "1850471"),
    ("jules-tasks", "3022817"),
    ("devin-app", "2718281"),
    ("amp-agent", "1447725"),
    ("homebrew-agent", None),
    ("acme-internal-bot", None),
)
UNRECOGNIZED_APPS = tuple(name for name, agent in AGENT_APPS if agent is None)

# Share of days (per seed) with no third-party agent activity anywhere, and with internal fields.
NO_AGENT_DAY_PERCENT = 15
INTERNAL_FIELDS_DAY_PERCENT = 20

_COMPLETION = "code_completion"
# feature -> (interactions, generations, acceptance rate, loc suggested to add and to delete
# per generation); the coefficients make a day's numbers look like a real developer's.
_FEATURES: dict[str, tuple[float, float, float, float, float]] = {
    _COMPLETION: (0.0, 6.0, 0.3, 1.8, 0.0),
    "chat_panel_ask_mode": (2.0, 1.0, 0.4, 8.0, 1.5),
    "chat_panel_edit_mode": (1.2, 1.5, 0.6, 10.0, 3.0),
    "chat_inline": (1.0, 1.0, 0.5, 5.0, 2.0),
    "chat_panel_custom_mode": (0.8, 0.6, 0.5, 6.0, 1.0),
    "chat_panel_unknown_mode": (0.3, 0.2, 0.5, 4.0, 1.0),
    "chat_panel_agent_mode": (1.5, 2.0, 0.7, 30.0, 8.0),
    "agent_edit": (0.0, 3.0, 0.8, 25.0, 10.0),
    telemetry.PLAN_FEATURE: (1.0, 0.5, 0.5, 6.0, 1.0),  # as custom mode before PLAN_MODE_FROM
    telemetry.OTHERS_FEATURE: (0.3, 0.6, 0.4, 4.0, 1.0),
    telemetry.UNKNOWN_FEATURE: (0.2, 0.4, 0.4, 4.0, 1.0),
}
_CHAT_FEATURES = ("chat_panel_ask_mode", "chat_panel_edit_mode", "chat_inline",
                  "chat_panel_custom_mode", "chat_panel_unknown_mode")
_AGENT_MODE_FEATURES = ("chat_panel_agent_mode", "agent_edit")
_LANGUAGES = ("python", "typescript", "javascript", "go", "java", "rust", "csharp", "ruby",
              "markdown", "yaml", "shell", "sql", "others")
_COMPLETION_MODEL = "default"
_CHAT_MODELS = ("gpt-4.1", "gpt-5", "gpt-5-mini", "claude-sonnet-4.5", "gemini-2.5-pro", "unknown")
_AGENT_MODELS = ("claude-sonnet-4.5", "gpt-5", "gpt-5-codex", "unknown")
# ide -> (weight, ide versions, plugin name)
_IDES: dict[str, tuple[int, tuple[str, ...], str]] = {
    "vscode": (60, ("1.103.2", "1.104.0", "1.104.3", "1.105.1"), "assistant-chat"),
    "intellij": (18, ("2025.2.1", "2025.2.3", "2025.3"), "assistant-intellij"),
    "visualstudio": (8, ("17.14.9", "17.14.13"), "assistant-vs"),
    "neovim": (5, ("0.11.3", "0.11.4"), "assistant.vim"),
    "xcode": (4, ("26.0", "26.0.1"), "assistant-xcode"),
    "eclipse": (3, ("4.36",), "assistant-eclipse"),
    "unknown": (2, ("unknown",), "unknown"),
}
_PLUGIN_VERSIONS = ("0.30.3", "0.31.0", "0.31.2", "0.32.1", "1.372.0", "1.388.0")
_CLI_VERSIONS = ("0.0.330", "0.0.342", "1.0.2", "1.0.8")
# AI credits per chat interaction by model (0: included in the plan).
_CREDITS = {"gpt-4.1": 0.0, "gpt-5-mini": 0.33, "gpt-5": 1.0, "gpt-5-codex": 1.0, "claude-sonnet-4.5": 1.0,
            "gemini-2.5-pro": 1.0, "unknown": 1.0}
_CHAT_PANEL_MODES = ("agent", "ask", "custom", "edit", "plan", "unknown")
# Out of 256, among a day's active users: who asked for a code review, and whose review was
# triggered by a policy only.
_REVIEW_ACTIVE_BELOW = 38
_REVIEW_PASSIVE_BELOW = 90

_BYTES_PER_USER = 20
_SURFACE_BYTES = 2
_SURFACE_COUNT_BYTES = 3  # the app's and VS Code agents' counts: a stream of their own
# The features of a 28-day report's engagement the emulator's flags can tell.
_ENGAGEMENT_FEATURES = ("code_completion", "agent_edit", "code_review_passive", "code_review_active", "cloud_agent")
# An adoption phase entry's averages per user, in the order the aggregate sums them.
# The adoption phases' labels by phase_number, as the service's docs give them.
PHASE_LABELS = ("No Cohort", "Phase 1", "Phase 2", "Phase 3")
_PHASE_AVERAGES = ("avg_user_initiated_interactions", "avg_code_generation_activities",
                   "avg_code_acceptance_activities", "avg_loc_added", "avg_loc_deleted")
_PROFILE_BYTES = 40
# Random bytes come in blocks of this many users, so a user range costs only its own blocks.
_BLOCK = 1024
_IDE_NAMES = tuple(_IDES)


def _byte_table(choices: Sequence[Any], weights: Sequence[int]) -> tuple[Any, ...]:
    """byte value -> choice, in proportion to the weights (a weighted draw from one byte)."""
    pool = [c for c, w in zip(choices, weights, strict=True) for _ in range(w)]
    return tuple(pool[i * len(pool) // 256] for i in range(256))


_IDE_TABLE = _byte_table(_IDE_NAMES, [w for w, _, _ in _IDES.values()])
# Apps of the renamed agent are favoured so the rename shows in small worlds too.
_APP_TABLE = _byte_table(range(len(AGENT_APPS)), (3, 2, 4, 2, 2, 2, 2, 2, 1))
# byte value -> volume multiplier, skewed like real usage (most days light, some heavy)
_MULT = tuple(0.35 + 2.4 * (i / 255) ** 2 for i in range(256))


def _key(*parts: object) -> int:
    digest = hashlib.blake2b(repr(parts).encode(), digest_size=8).digest()
    return int.from_bytes(digest, "little")


def completeness(*, day: date, today: date, fetch_no: int) -> float:
    """Share of a day's activity visible in a report fetched `fetch_no` times (from 1).

    Final (1.0) once more than three full days have passed; before that it starts lower the
    newer the day is and grows with every fetch, staying below 1.
    """
    age = (today - day).days
    if age > 3:
        return 1.0
    base = {3: 0.9, 2: 0.75, 1: 0.6}.get(age, 0.5)
    grown = 1.0 - (1.0 - base) / max(1, fetch_no)
    return min(grown, math.nextafter(1.0, 0.0))


@dataclass(frozen=True, slots=True)
class _Profile:
    """What stays the same for one user from day to day."""

    user_id: int
    login: str
    active_threshold: int  # out of 256, weekdays
    chat_threshold: int
    agent_mode_threshold: int
    cli_threshold: int
    agents_threshold: int
    volume: float
    ides: tuple[str, ...]
    ide_versions: tuple[str, ...]
    plugin_version: str
    cli_version: str
    sampled_time: str
    languages: tuple[str, ...]
    language_weights: tuple[float, ...]
    chat_features: tuple[str, ...]
    chat_model: str
    agent_model: str
    apps: tuple[int, ...]  # indices into AGENT_APPS
    active_until: int = _NO_END  # ordinal of the first day the user is never active again
    cloud_agent_threshold: int = 0  # out of 256, among active days: the service's own cloud agent
    app_threshold: int = 0  # likewise, the assistant's desktop app


@dataclass(slots=True)
class _UserDay:
    """One user's (scaled) numbers for one day."""

    active: bool
    used_chat: bool
    used_agent: bool
    used_cli: bool
    ide: str
    totals: Sequence[int]
    languages: tuple[str, ...]
    features: list[tuple[str, str, list[list[int]]]]  # (feature, model, counts per language)
    cli: tuple[int, int, int, int, int] | None  # sessions, requests, prompts, out, prompt tokens
    agents: list[tuple[str, int, int]]  # (agent_id, job starts, sessions), merged apps
    review_active: bool
    review_passive: bool
    cloud_agent: bool = False  # the service's own cloud agent (formerly "coding agent")
    app: bool = False  # the assistant's desktop app
    vscode_agent: bool = False  # agent sessions in VS Code
    app_counts: tuple[int, int, int, int, int] | None = None  # the app's sessions, requests, prompts, tokens
    vscode_counts: tuple[int, int] | None = None  # VS Code agent sessions, user messages
    # CLI customizations used: category -> ((name, interaction count), ...); CLI users only.
    customizations: dict[str, tuple[tuple[str, int], ...]] | None = None
    # Entries of totals_by_feature with no language or model (copilot_app, copilot_cli): in
    # `totals`, never in `ide_totals`, the IDE's share of the day.
    feature_rows: list[tuple[str, tuple[int, ...]]] = field(default_factory=list)
    ide_totals: Sequence[int] = ZEROS
    server_side: bool = False  # active by the service's own telemetry only (emulator/telemetry.py)
    shifted: str | None = None  # misattributed as the service did (emulator/misattribution.py)


class ReportData:
    """Report records for one emulated organization and its enterprise."""

    def __init__(self, *, seed: int, users: int, org: str, enterprise: str, first_day: date,
                 dialect: str = "service", cloud_agent_from: date | None = None) -> None:
        if users < 1:
            raise EmulatorError("users must be at least 1")
        self.seed = seed
        self.users = users
        self.org = org
        self.enterprise = enterprise
        self.first_day = first_day
        self._name = wire_for(dialect).record_name
        # The day the service renamed its "coding agent" the "cloud agent" (April 2026): records of
        # earlier days carry the old field names. None: every day has the new ones.
        self.cloud_agent_from = cloud_agent_from
        self._user_fields = user_fields_format(self._name)
        self.second_org = f"{org}-labs"
        self.second_org_users = max(1, users // 2)
        self.rename_day = first_day + timedelta(days=RENAME_OFFSET_DAYS)
        self.lapse_day = first_day + timedelta(days=LAPSE_OFFSET_DAYS)
        self.organization_id = str(100_000 + _key("org", seed, org) % 90_000_000)
        self.second_organization_id = str(100_000 + _key("org", seed, self.second_org) % 90_000_000)
        self.enterprise_id = str(1_000 + _key("enterprise", seed, enterprise) % 900_000)
        self._total = users + self.second_org_users
        self._profiles: list[_Profile | None] = [None] * self._total
        self._profile_block = lru_cache(maxsize=8)(self._make_profile_block)
        self._day_block = lru_cache(maxsize=512)(self._make_day_block)
        self._surface_block = lru_cache(maxsize=512)(self._make_surface_block)
        self._surface_count_block = lru_cache(maxsize=512)(self._make_surface_count_block)
        self._class_block = lru_cache(maxsize=512)(
            lambda ordinal, block: telemetry.class_bytes(_key("classes", seed, ordinal, block), _BLOCK))
        self._shift_block = lru_cache(maxsize=64)(lambda ordinal, block: misattribution.shift_bytes(
            _key("misattribution", seed, ordinal, block), _BLOCK))
        self._day_flags = lru_cache(maxsize=64)(self._make_day_flags)
        self._aggregate = lru_cache(maxsize=256)(self._make_aggregate)
        self.teams = TeamsModel(seed=seed, org=org, enterprise=enterprise, second_org=self.second_org,
                                users=users, total=self._total, first_day=first_day,
                                rename_day=self.rename_day, identity=self._login_and_id)
        self.team_move_day = self.teams.move_day
        self.pilot_listed_from = self.teams.pilot_listed_from("organization")
        self._last_active = lru_cache(maxsize=4)(self._make_last_active)

    # ----- public surface -------------------------------------------------------------------

    def user_count(self, *, scope: str) -> int:
        return self._scope_size(scope)

    def agent_name(self, *, agent_id: str, day: date) -> str:
        """The label an agent carries in reports of `day` (the renamed agent changes on rename_day)."""
        if agent_id == RENAMED_AGENT_ID and day >= self.rename_day:
            return RENAMED_AGENT_NEW_NAME
        return _AGENT_NAMES[agent_id]

    def has_agent_activity(self, *, day: date) -> bool:
        """False on the days (about NO_AGENT_DAY_PERCENT of them) with no agent activity anywhere."""
        return _agents_day(self.seed, day.toordinal())

    def aggregate_record(self, *, scope: str, day: date, completeness: float) -> dict:
        self._scope_size(scope)
        return copy.deepcopy(self._aggregate(scope, day, float(completeness)))

    def aggregate_28_day(self, *, scope: str, end_day: date,
                         completeness_for: Callable[[date], float]) -> dict:
        self._scope_size(scope)
        start_day = end_day - timedelta(days=27)
        days = [start_day + timedelta(days=i) for i in range(28)]
        return {
            "report_start_day": start_day.isoformat(),
            "report_end_day": end_day.isoformat(),
            **self._ids(scope),
            "created_at": f"{(end_day + timedelta(days=1)).isoformat()}T06:{self.seed % 60:02d}:00Z",
            "day_totals": [self._with_phase_population(scope, copy.deepcopy(
                self._aggregate(scope, d, float(completeness_for(d)))), d) for d in days],
            self._name("assistant_feature_engagement"): self._feature_engagement(scope, days),
        }

    def _feature_engagement(self, scope: str, days: list[date]) -> dict[str, Any]:
        """The 28 days' active users and, per feature, those who used it on two days or more."""
        mask = self._scope_mask(scope)
        once = [0] * 5
        twice = [0] * 5
        active = 0
        for day in days:
            a, _, ag, ra, rp, cl, no_ide = self._day_flags(day)
            active |= a | no_ide
            for i, used in enumerate((a, ag, rp, ra, cl)):
                twice[i] |= once[i] & used
                once[i] |= used
        return {
            "active_user_count": (active & mask).bit_count(),
            "totals_by_feature": [{"feature": feature, "engaged_user_count": (engaged & mask).bit_count()}
                                  for feature, engaged in zip(_ENGAGEMENT_FEATURES, twice, strict=True)],
        }

    def _with_phase_population(self, scope: str, record: dict[str, Any], day: date) -> dict[str, Any]:
        """A 28-day report's day: each phase entry gains the phase's whole rolling 28-day
        population as of the day (users active on any of its 28 days), September 2026."""
        window = 0
        for back in range(28):
            window |= self._day_flags(day - timedelta(days=back))[0]
        window &= self._scope_mask(scope)
        population: dict[int, int] = {}
        for u in self._scope_users(scope):
            if window >> u & 1:
                phase = self._phase(u, day)
                population[phase] = population.get(phase, 0) + 1
        for entry in record.get("totals_by_ai_adoption_phase", []):
            entry["users_in_phase_28d"] = population.get(entry["phase_number"], 0)
        return record

    def user_lines(self, *, scope: str, days: Sequence[date],
                   completeness_for: Callable[[date], float], start: int, stop: int) -> Iterator[bytes]:
        size = self._scope_size(scope)
        if not 0 <= start <= stop <= size:
            raise EmulatorError(f"user range [{start}, {stop}) outside 0..{size}")
        ids = "".join(f'"{name}":"{value}",' for name, value in self._ids(scope).items())
        for day in days:
            c = float(completeness_for(day))
            prefix = f'","day":"{day.isoformat()}",{ids}'
            internal = self._internal_user_fields(day)
            for u in range(start, stop):
                yield self._user_line(u, day, c, prefix, internal).encode()

    def server_side_only(self, *, scope: str, day: date) -> set[int]:
        """The ids of the users the day's aggregate counts active by the service's own telemetry
        only: their user-level lines show no activity (emulator/telemetry.py)."""
        return {self._profile(u).user_id for u in self._scope_users(scope)
                if self._user_day(u, day, 1.0).server_side}

    def misattributed(self, *, scope: str, day: date) -> dict[int, str]:
        """User id -> what the service served in its place that day (emulator/misattribution.py)."""
        days = ((self._profile(u).user_id, self._user_day(u, day, 1.0).shifted) for u in self._scope_users(scope))
        return {user_id: shifted for user_id, shifted in days if shifted}

    # ----- teams (docs/extensions.md; emulator/teams.py has the rules) ---------------------------

    def team_members(self, *, scope: str, day: date) -> list[TeamMembership]:
        """Every (user, team) of the day; `listed` is False for a team under 5 members that day."""
        self._scope_size(scope)
        return list(self.teams.members(scope, day))

    def user_teams_lines(self, *, scope: str, day: date) -> Iterator[bytes]:
        """The user-teams report of the day: one NDJSON line per (user, listed team)."""
        self._scope_size(scope)
        return self.teams.lines(scope=scope, day=day, ids=self._ids(scope))

    # ----- seats: last activity of the organization's users -------------------------------------

    def identity(self, u: int) -> tuple[str, int]:
        """(login, user id) of global user u, as in the reports."""
        return self._login_and_id(u)

    def last_active_days(self, *, today: date) -> tuple[date | None, ...]:
        """Per enterprise user (the organization's come first), the last day before `today` on
        which the user was active (final data: the record has activity once the day is final),
        None when the user was not active in the LAST_ACTIVITY_DAYS days before `today`. Cached
        per `today`."""
        return self._last_active(today)

    def editor_on(self, u: int, day: date) -> str:
        """`{ide}/{ide_version}/{plugin}/{plugin_version}` of user u's activity on `day`."""
        p = self._profile(u)
        b = self._day_block(day.toordinal(), u // _BLOCK)
        ide = p.ides[b[(u % _BLOCK) * _BYTES_PER_USER + 5] % len(p.ides)]
        return f"{ide}/{p.ide_versions[p.ides.index(ide)]}/{_IDES[ide][2]}/{p.plugin_version}"

    def activity_time(self, u: int) -> str:
        """The time of day (`THH:MM:SSZ`) of user u's activity."""
        return self._profile(u).sampled_time[:9] + "Z"

    def _make_last_active(self, today: date) -> tuple[date | None, ...]:
        # Only the per-day activity byte is read, and a user found active drops out, so a
        # listing costs one pass over the users for the first days and little after.
        profiles = [self._profile(u) for u in range(self._total)]
        found: list[date | None] = [None] * self._total
        remaining = list(range(self._total))
        for back in range(1, LAST_ACTIVITY_DAYS + 1):
            if not remaining:
                break
            day = today - timedelta(days=back)
            ordinal, weekend = day.toordinal(), day.weekday() >= 5
            blocks: dict[int, bytes] = {}
            still = []
            for u in remaining:
                block = u // _BLOCK
                b = blocks.get(block)
                if b is None:
                    b = blocks[block] = self._make_day_block(ordinal, block)
                if self._active(profiles[u], b, (u % _BLOCK) * _BYTES_PER_USER, weekend, ordinal):
                    found[u] = day
                else:
                    still.append(u)
            remaining = still
        return tuple(found)

    # ----- scopes -----------------------------------------------------------------------------

    def _scope_size(self, scope: str) -> int:
        if scope == "organization":
            return self.users
        if scope == "enterprise":
            return self._total
        raise EmulatorError(f"unknown scope {scope!r}; expected organization or enterprise")

    def _ids(self, scope: str) -> dict[str, str]:
        """The entity ids a line of the scope names: an organization's lines name its enterprise
        too, as the service documents for an organization in an enterprise (every one here is)."""
        if scope == "organization":
            return {"organization_id": self.organization_id, "enterprise_id": self.enterprise_id}
        return {"enterprise_id": self.enterprise_id}

    def _has_internal_fields(self, day: date) -> bool:
        return _key("internal", self.seed, day.toordinal()) % 100 < INTERNAL_FIELDS_DAY_PERCENT

    def _internal_user_fields(self, day: date) -> str:
        if not self._has_internal_fields(day):
            return ""
        return f',"day_partition":"{day.isoformat()}","entity_id_partition":{day.toordinal() % 64}'

    # ----- users ------------------------------------------------------------------------------

    def _profile(self, u: int) -> _Profile:
        profile = self._profiles[u]
        if profile is None:
            profile = self._make_profile(u)
            self._profiles[u] = profile
        return profile

    def _login_and_id(self, u: int) -> tuple[str, int]:
        if u < self.users:
            # Same logins and ids as the emulator's world (owner, member, then dev-NNNNN).
            login = (f"{self.org}-admin", f"{self.org}-member")[u] if u < 2 else f"dev-{u - 2:05d}"
            return login, 1_000_002 + u
        i = u - self.users
        return f"{self.second_org}-dev-{i:05d}", 5_000_000 + i

    def _make_profile(self, u: int) -> _Profile:
        # One slice of a per-seed byte stream per user: cheaper than a Random per user, and
        # still independent of which other users are generated.
        o = (u % _BLOCK) * _PROFILE_BYTES
        pb = self._profile_block(u // _BLOCK)[o:o + _PROFILE_BYTES]
        login, user_id = self._login_and_id(u)
        ides = [_IDE_TABLE[pb[1]]]
        if pb[2] < 51:
            second = _IDE_NAMES[pb[3] % 3]
            if second != ides[0]:
                ides.append(second)
        start = pb[5] % 12
        offsets = [0]
        for i in range((1, 1, 1, 2, 2, 3)[pb[4] % 6] - 1):
            offsets.append(offsets[-1] + 1 + pb[6 + i] % 3)
        languages = [_LANGUAGES[(start + k) % 12] for k in offsets]
        if pb[8] < 31:
            languages.append("unknown")
        if pb[9] < 20:
            languages.append("others")
        raw = [0.45] + [0.1 + 0.4 * pb[10 + i] / 255 for i in range(len(languages) - 1)]
        total = sum(raw)
        chat_features = [f for i, f in enumerate(_CHAT_FEATURES[:3]) if pb[13 + i] < 102][:2]
        chat_features += [f for i, f in enumerate(_CHAT_FEATURES[3:]) if pb[16 + i] < 15][:1]
        if not chat_features:
            chat_features = [_CHAT_FEATURES[pb[18] % 3]]
        agent_user = pb[19] < 115
        apps = tuple(sorted({_APP_TABLE[pb[21 + i]] for i in range((1, 2, 3)[pb[20] % 3])})) if agent_user else ()
        active_threshold = (200, 200, 200, 200, 200, 140, 140, 140, 140, 140, 140,
                            70, 70, 70, 70, 70, 20, 20, 20, 20)[pb[0] % 20]
        active_until = _NO_END
        if u < self.users and u % NEVER_ACTIVE_EVERY == NEVER_ACTIVE_AT:
            active_threshold = 0
        elif u < self.users and u % LAPSED_EVERY == LAPSED_AT:
            active_threshold = max(active_threshold, _LAPSED_THRESHOLD)
            active_until = self.lapse_day.toordinal()
        return _Profile(
            user_id=user_id,
            login=login,
            active_threshold=active_threshold,
            active_until=active_until,
            chat_threshold=(20, 60, 120, 180)[pb[28] % 4],
            agent_mode_threshold=(0, 30, 70, 130)[pb[29] % 4],
            cli_threshold=(0, 0, 0, 60, 150)[pb[30] % 5],
            agents_threshold=140 if agent_user else 0,
            volume=1.5 + 4.5 * pb[31] / 255,
            ides=tuple(ides),
            ide_versions=tuple(_IDES[name][1][pb[32 + i] % len(_IDES[name][1])] for i, name in enumerate(ides)),
            plugin_version=_PLUGIN_VERSIONS[pb[34] % len(_PLUGIN_VERSIONS)],
            cli_version=_CLI_VERSIONS[pb[37] % len(_CLI_VERSIONS)],
            sampled_time=f"T{7 + pb[24] % 13:02d}:{pb[25] % 60:02d}:{pb[26] % 60:02d}.{pb[27] * 37 % 1000:03d}Z",
            languages=tuple(languages),
            language_weights=tuple(w / total for w in raw),
            chat_features=tuple(chat_features),
            chat_model=_CHAT_MODELS[pb[35] % len(_CHAT_MODELS)],
            agent_model=_AGENT_MODELS[pb[36] % len(_AGENT_MODELS)],
            apps=apps,
            cloud_agent_threshold=(0, 0, 35, 90)[pb[38] % 4],
            app_threshold=(0, 0, 0, 60)[pb[39] % 4],
        )

    def _make_profile_block(self, block: int) -> bytes:
        return random.Random(_key("profiles", self.seed, block)).randbytes(_BLOCK * _PROFILE_BYTES)

    def _make_day_block(self, ordinal: int, block: int) -> bytes:
        return random.Random(_key("day", self.seed, ordinal, block)).randbytes(_BLOCK * _BYTES_PER_USER)

    def _make_surface_count_block(self, ordinal: int, block: int) -> bytes:
        # Their own stream too: the surfaces' flags stay as they were before the counts came.
        return random.Random(_key("surface-counts", self.seed, ordinal, block)).randbytes(_BLOCK * _SURFACE_COUNT_BYTES)

    def _make_surface_block(self, ordinal: int, block: int) -> bytes:
        # A stream of its own: the agent surfaces came later, and every older number stays as it was.
        return random.Random(_key("surfaces", self.seed, ordinal, block)).randbytes(_BLOCK * _SURFACE_BYTES)

    def _surfaces(self, u: int, p: _Profile, ordinal: int, *, active: bool, agent_mode: bool,
                  ide: str) -> tuple[bool, bool, bool]:
        """(cloud agent, app, VS Code agent) for an active user's day."""
        if not active:
            return False, False, False
        s = self._surface_block(ordinal, u // _BLOCK)
        o = (u % _BLOCK) * _SURFACE_BYTES
        return s[o] < p.cloud_agent_threshold, s[o + 1] < p.app_threshold, agent_mode and ide == "vscode"

    def _surface_counts(self, u: int, ordinal: int, *, app: bool, vscode_agent: bool,
                        c: float) -> tuple[tuple[int, int, int, int, int] | None, tuple[int, int] | None]:
        """The app's (sessions, requests, prompts, output and prompt tokens) and VS Code agents'
        (sessions, messages) of a user's day, scaled as the day's other counts; None where the
        surface was not used."""
        if not (app or vscode_agent):
            return None, None
        s = self._surface_count_block(ordinal, u // _BLOCK)
        o = (u % _BLOCK) * _SURFACE_COUNT_BYTES
        app_counts = vscode_counts = None
        if app:
            sessions = 1 + s[o] % 4
            requests = sessions * (1 + s[o + 2] % 6)
            app_counts = (int(sessions * c), int(requests * c), int((requests - s[o] % 2) * c),
                          int(requests * (150 + 3 * s[o + 1]) * c), int(requests * (1800 + 20 * s[o + 2]) * c))
        if vscode_agent:
            sessions = 1 + s[o + 1] % 3
            vscode_counts = (int(sessions * c), int(sessions * (2 + s[o + 2] % 9) * c))
        return app_counts, vscode_counts

    @staticmethod
    def _active(p: _Profile, b: bytes, o: int, weekend: bool, ordinal: int) -> bool:
        threshold = p.active_threshold // 4 if weekend else p.active_threshold
        return b[o] < threshold and ordinal < p.active_until

    def _flags(self, p: _Profile, b: bytes, o: int, weekend: bool, agents_day: bool,
               ordinal: int) -> tuple[bool, bool, bool, bool, bool, bool, bool]:
        active = self._active(p, b, o, weekend, ordinal)
        chat = active and b[o + 1] < p.chat_threshold
        agent_mode = chat and b[o + 2] < p.agent_mode_threshold
        cli = active and b[o + 3] < p.cli_threshold
        agents = chat and agents_day and b[o + 4] < p.agents_threshold
        # Code review users are among the day's active users, each active or passive, never both.
        review_active = active and b[o + 19] < _REVIEW_ACTIVE_BELOW
        review_passive = active and _REVIEW_ACTIVE_BELOW <= b[o + 19] < _REVIEW_PASSIVE_BELOW
        return active, chat, agent_mode, cli, agents, review_active, review_passive

    def _make_day_flags(self, day: date) -> tuple[int, int, int, int, int, int, int]:
        """Bit masks over global users of who was active in the IDE, used chat, used agent mode,
        was an active and a passive code review user, used the cloud agent, and was active with
        no IDE activity (server-side only or desktop app only) (final)."""
        ordinal = day.toordinal()
        weekend = day.weekday() >= 5
        agents_day = self.has_agent_activity(day=day)
        active_mask = chat_mask = agent_mask = review_active_mask = review_passive_mask = cloud_mask = 0
        no_ide_mask = 0
        classes = day >= telemetry.SERVER_SIDE_FROM  # no user is active without the IDE before
        for u in range(self._total):
            b = self._day_block(ordinal, u // _BLOCK)
            p = self._profile(u)
            o = (u % _BLOCK) * _BYTES_PER_USER
            active, chat, agent_mode, _, _, review_active, review_passive = self._flags(
                p, b, o, weekend, agents_day, ordinal)
            if not active:
                if classes and p.active_threshold and ordinal < p.active_until:
                    cb = self._class_block(ordinal, u // _BLOCK)
                    kind = telemetry.day_class(cb, (u % _BLOCK) * telemetry.CLASS_BYTES, day)
                    # App-only days served as the CLI's (September 2026) count as CLI-only ones.
                    no_ide_mask |= (kind is not None and not (kind == "app" and misattribution.app_as_cli(
                        self._shift_block(ordinal, u // _BLOCK), (u % _BLOCK) * misattribution.SHIFT_BYTES, day))) << u
                continue
            active_mask |= 1 << u
            review_active_mask |= review_active << u
            review_passive_mask |= review_passive << u
            ide = p.ides[b[o + 5] % len(p.ides)]
            cloud, _, _ = self._surfaces(u, p, ordinal, active=True, agent_mode=agent_mode, ide=ide)
            cloud_mask |= cloud << u
            if chat:
                chat_mask |= 1 << u
                # IDE agent sessions missing or counted as CLI (October 2026) are no agent day.
                agent_mask |= (agent_mode and not misattribution.agent_moved(self.seed, u, ide, day)) << u
        return active_mask, chat_mask, agent_mask, review_active_mask, review_passive_mask, cloud_mask, no_ide_mask

    def _no_ide_class(self, u: int, p: _Profile, day: date) -> str | None:
        """"app", "server" or "cli" for a day of user u without IDE activity (emulator/telemetry.py)."""
        ordinal = day.toordinal()
        if p.active_threshold == 0 or ordinal >= p.active_until:
            return None
        return telemetry.day_class(self._class_block(ordinal, u // _BLOCK), (u % _BLOCK) * telemetry.CLASS_BYTES, day,
                                   cli_user=p.cli_threshold > 0)

    def _no_ide_day(self, u: int, p: _Profile, day: date, c: float, ide: str, b: bytes, o: int) -> _UserDay:
        """A day without IDE activity: none at all, server-side only, in the CLI or desktop app only."""
        kind = self._no_ide_class(u, p, day)
        if kind == "cli":
            cli = cli_usage.cli_counts(b, o, c)
            counts = telemetry.cli_feature_counts(cli)
            return _UserDay(False, False, False, True, ide, counts, p.languages, [], cli, [], False, False,
                            customizations=self._customizations(u, day.toordinal(), c),
                            feature_rows=[(telemetry.CLI_FEATURE, counts)])
        if kind != "app":
            return _UserDay(False, False, False, False, ide, ZEROS, p.languages, [], None, [], False, False,
                            server_side=kind == "server")
        app_counts, _ = self._surface_counts(u, day.toordinal(), app=True, vscode_agent=False, c=c)
        assert app_counts is not None
        counts = telemetry.app_feature_counts(app_counts)
        return _UserDay(False, False, False, False, ide, counts, p.languages, [], None, [], False, False,
                        app=True, app_counts=app_counts, feature_rows=[(telemetry.APP_FEATURE, counts)])

    def _user_day(self, u: int, day: date, c: float) -> _UserDay:
        """A user-day as served: as the service misattributed it in its documented windows."""
        d = self._user_day_as_used(u, day, c)
        if not misattribution.in_a_window(day):
            return d
        return misattribution.apply(d, b=self._shift_block(day.toordinal(), u // _BLOCK),
                                    o=(u % _BLOCK) * misattribution.SHIFT_BYTES, seed=self.seed, u=u, day=day)

    def _user_day_as_used(self, u: int, day: date, c: float) -> _UserDay:
        p = self._profile(u)
        b = self._day_block(day.toordinal(), u // _BLOCK)
        o = (u % _BLOCK) * _BYTES_PER_USER
        active, chat, agent_mode, cli, agents, review_active, review_passive = self._flags(
            p, b, o, day.weekday() >= 5, self.has_agent_activity(day=day), day.toordinal())
        ide = p.ides[b[o + 5] % len(p.ides)]
        if not active:
            return self._no_ide_day(u, p, day, c, ide, b, o)
        volume = p.volume * _MULT[b[o + 6]]
        # Not every language and feature of a user shows up every day: the primary language
        # and the first chat feature always do, the others when their bit is set.
        pick, pick_features = b[o + 17], b[o + 18]
        languages = tuple(lang for i, lang in enumerate(p.languages) if i == 0 or pick >> i & 1)
        weights = tuple(w for i, w in enumerate(p.language_weights) if i == 0 or pick >> i & 1)
        plan: list[tuple[str, str, float]] = [(_COMPLETION, _COMPLETION_MODEL, max(1.0, volume))]
        if chat:
            for i, f in enumerate(p.chat_features):
                if i == 0 or pick_features >> i & 1:
                    plan.append((f, p.chat_model, volume * _MULT[b[o + 7 + i]]))
        if agent_mode:
            plan.append((_AGENT_MODE_FEATURES[0], p.agent_model, volume * _MULT[b[o + 10]]))
            if pick_features >> 4 & 1:
                plan.append((_AGENT_MODE_FEATURES[1], p.agent_model, volume * _MULT[b[o + 11]]))
        extra, e = self._class_block(day.toordinal(), u // _BLOCK), (u % _BLOCK) * telemetry.CLASS_BYTES
        if chat and extra[e + 1] < telemetry.PLAN_BELOW:
            # Before the service split plan mode out, it reported it as custom mode.
            mode = telemetry.PLAN_FEATURE if day >= telemetry.PLAN_MODE_FROM else "chat_panel_custom_mode"
            if all(f != mode for f, _, _ in plan):
                plan.append((mode, p.chat_model, volume * _MULT[extra[e + 3]]))
        other = telemetry.other_feature(extra[e + 2])
        if other is not None:
            plan.append((other, _COMPLETION_MODEL, volume * _MULT[255 - extra[e + 3]]))
        apps: list[tuple[str | None, int, int]] = []
        if agents:
            for i, app in enumerate(p.apps):
                r = b[o + 14 + i]
                jobs = 1 + r % 6
                apps.append((AGENT_APPS[app][1], jobs, 1 + (r >> 4) % jobs))
        features: list[tuple[str, str, list[list[int]]]] = []
        for f, model, v in plan:
            ui, ug, ar, sa, sd = _FEATURES[f]
            rows = []
            for w in weights:
                x = v * w
                gen = int(x * ug)
                if gen == 0 and f == _COMPLETION:
                    gen = 1  # an active day always shows some completion activity
                acc = int(gen * ar)
                rows.append([int(x * ui), gen, acc, int(gen * sa), int(gen * sd), int(acc * sa), int(acc * sd)])
            features.append((f, model, rows))
        if apps:
            # Agent job starts come from other telemetry than prompts; keep the top-level count
            # clearly above them so summing the two measures by mistake shows in any check.
            features[1][2][0][0] += 3 * sum(jobs for _, jobs, _ in apps) + 3
        if c < 1.0:
            features = [(f, m, [[int(n * c) for n in row] for row in rows]) for f, m, rows in features]
        totals = column_sums([row for _, _, rows in features for row in rows])
        cli_counts = cli_usage.cli_counts(b, o, c) if cli else None
        merged: dict[str, list[int]] = {}
        for agent_id, jobs, sessions in apps:
            if agent_id is None:
                continue  # unrecognized agents never appear in reports
            entry = merged.setdefault(agent_id, [0, 0])
            entry[0] += int(jobs * c)
            entry[1] += int(sessions * c)
        cloud_agent, app, vscode_agent = self._surfaces(u, p, day.toordinal(), active=True, agent_mode=agent_mode,
                                                        ide=ide)
        app_counts, vscode_counts = self._surface_counts(u, day.toordinal(), app=app, vscode_agent=vscode_agent, c=c)
        customizations = self._customizations(u, day.toordinal(), c) if cli_counts is not None else None
        rows: list[tuple[str, tuple[int, ...]]] = []
        if cli_counts is not None:
            rows.append((telemetry.CLI_FEATURE, telemetry.cli_feature_counts(cli_counts)))
        if app_counts is not None and day >= telemetry.APP_IN_COUNTS_FROM:
            rows.append((telemetry.APP_FEATURE, telemetry.app_feature_counts(app_counts)))
        return _UserDay(
            active, chat, agent_mode, cli, ide, column_sums([totals, *(counts for _, counts in rows)]), languages,
            features, cli_counts, [(a, j, s) for a, (j, s) in sorted(merged.items()) if j > 0],
            review_active, review_passive, cloud_agent, app, vscode_agent, app_counts, vscode_counts,
            customizations, feature_rows=rows, ide_totals=totals,
        )

    def _customizations(self, u: int, ordinal: int, c: float) -> dict[str, tuple[tuple[str, int], ...]]:
        return cli_usage.customizations(_key("customizations", self.seed, u, ordinal), c)

    def _phase(self, u: int, day: date) -> int:
        """The user's adoption phase (0 no cohort .. 3 multi-agent): stable for weeks, as a
        28-day window moves, re-drawn every 28 days."""
        return _key("phase", self.seed, u, day.toordinal() // 28) % 4

    def _renamed(self, day: date) -> bool:
        return self.cloud_agent_from is None or day >= self.cloud_agent_from

    def _cloud_name(self, name: str, day: date) -> str:
        return self._name(name if self._renamed(day) else name.replace("cloud_agent", "coding_agent"))

    def _surface_fields(self, d: _UserDay, day: date, phase: int) -> str:
        # The former "coding agent" flag is sent beside the cloud agent's, with the same value.
        cloud = JSON_BOOL[d.cloud_agent]
        text = (f',"{self._name("used_assistant_coding_agent")}":{cloud}'
                + (f',"{self._name("used_assistant_cloud_agent")}":{cloud}' if self._renamed(day) else "")
                + f',"{self._name("used_assistant_app")}":{JSON_BOOL[d.app]}'
                f',"used_vscode_agent":{JSON_BOOL[d.vscode_agent]}'
                f',"ai_adoption_phase":{{"phase":"{PHASE_LABELS[phase]}","phase_number":{phase},"version":"v1"}}')
        if d.app_counts is not None:
            app = json.dumps(app_dict(d.app_counts), separators=COMPACT)
            text += f',"{self._name("totals_by_assistant_app")}":{app}'
        if d.vscode_counts is not None:
            text += ',"totals_by_vscode_agent":' + json.dumps(vscode_dict(d.vscode_counts), separators=COMPACT)
        return text

    # ----- user-level lines -------------------------------------------------------------------

    def _user_line(self, u: int, day: date, c: float, prefix: str, internal: str) -> str:
        p = self._profile(u)
        d = self._user_day(u, day, c)
        credits = sum(sum(row[0] for row in rows) * _CREDITS[model]
                      for f, model, rows in d.features if f not in NO_MODEL_FEATURES)
        # Code review flags: null without a review signal that day, as documented.
        review = _REVIEW_JSON[d.review_active, d.review_passive]
        head = (f'{{"user_id":{p.user_id},"user_login":"{p.login}{prefix}'
                + COUNTS % tuple(d.totals) + FLAGS[d.used_agent, d.used_chat, d.used_cli]
                + self._user_fields % (round(credits, 2), *review)
                + self._surface_fields(d, day, self._phase(u, day)))
        if not d.feature_rows and not d.active:
            return head + EMPTY_BREAKDOWNS + internal + "}\n"
        i, sampled = p.ides.index(d.ide), day.isoformat() + p.sampled_time
        parts = [  # the desktop app or CLI only: its one feature entry, no IDE, language or model
            head,
            IDE_ENTRY % (d.ide, COUNTS % tuple(d.ide_totals), p.ide_versions[i], sampled,
                         _IDES[d.ide][2], p.plugin_version, sampled) if d.active else ',"totals_by_ide":[]',
            user_breakdowns(d.languages, d.features, d.feature_rows),
        ]
        if d.cli is not None:
            parts.append(',"totals_by_cli":' + cli_json(d.cli)[:-1]
                         + CLI_VERSION % (p.cli_version, sampled) + "}")
        if d.agents:
            parts.append(',"totals_by_3rd_party_agent":[' + ",".join(
                AGENT_ENTRY % (a, self.agent_name(agent_id=a, day=day), j) for a, j, _ in d.agents) + "]")
        if d.customizations is not None:
            distinct = {category: len(used) for category, used in d.customizations.items()}
            parts.append(customization_json(d.customizations, distinct=distinct))
        parts.append(internal)
        parts.append("}\n")
        return "".join(parts)

    # ----- aggregates -------------------------------------------------------------------------

    def _scope_users(self, scope: str) -> range:
        return range(self._scope_size(scope))

    def _scope_mask(self, scope: str) -> int:
        return (1 << self._scope_size(scope)) - 1

    def _make_aggregate(self, scope: str, day: date, c: float) -> dict[str, Any]:
        totals = [0] * 7
        by_ide: dict[str, list[int]] = {}
        cells: dict[tuple[str, str, str], list[int]] = {}
        cli_sums = [0] * 5
        cli_present = False
        agents: dict[str, list[int]] = {}
        active_today = chat_today = agent_today = cli_today = review_active_today = review_passive_today = 0
        cloud_today = app_today = vscode_today = 0
        app_sums, vscode_sums = [0] * 5, [0, 0]
        customized: dict[str, dict[str, int]] = {}
        phases: dict[int, list[int]] = {}  # phase -> users, and their interactions, generations, ...
        feature_rows: dict[str, list[int]] = {}
        ide_active = 0  # whose pull requests the day's are drawn from
        for u in self._scope_users(scope):
            d = self._user_day(u, day, c)
            # Server-side only and desktop-app-only users count as active, CLI-only users do not
            # (emulator/telemetry.py): the service's daily_active_users is IDE-based.
            if d.server_side or ((d.totals[0] or d.totals[1]) and (d.active or d.app)):
                active_today |= 1 << u
            if d.app_counts is not None:
                add(app_sums, d.app_counts)
            app_today |= d.app << u
            add(totals, d.totals)
            for f, counts in d.feature_rows:
                add(feature_rows.setdefault(f, [0] * 7), counts)
            cli_today |= d.used_cli << u
            if d.cli is not None:
                cli_present = True
                add(cli_sums, d.cli)
            for category, entries in (d.customizations or {}).items():
                names = customized.setdefault(category, {})
                for name, count in entries:
                    names[name] = names.get(name, 0) + count
            if not d.active:
                continue
            if d.vscode_counts is not None:
                add(vscode_sums, d.vscode_counts)
            add(phases.setdefault(self._phase(u, day), [0] * 6),
                (1, d.totals[0], d.totals[1], d.totals[2], d.totals[5], d.totals[6]))
            cloud_today |= d.cloud_agent << u
            vscode_today |= d.vscode_agent << u
            if d.ide_totals[0] or d.ide_totals[1]:
                ide_active |= 1 << u
            review_active_today |= d.review_active << u
            review_passive_today |= d.review_passive << u
            if d.used_chat:
                chat_today |= 1 << u
            if d.used_agent:
                agent_today |= 1 << u
            add(by_ide.setdefault(d.ide, [0] * 7), d.ide_totals)
            for f, model, rows in d.features:
                for lang, counts in zip(d.languages, rows, strict=True):
                    add(cells.setdefault((f, lang, model), [0] * 7), counts)
            for agent_id, jobs, sessions in d.agents:
                add(agents.setdefault(agent_id, [0, 0]), (jobs, sessions))
        mask = self._scope_mask(scope)
        week = month = month_chat = month_agent = week_cloud = month_cloud = 0
        review = {"weekly": [0, 0], "monthly": [0, 0]}
        for back in range(1, 28):
            a, ch, ag, ra, rp, cl, no_ide = self._day_flags(day - timedelta(days=back))
            if back < 7:
                week |= a | no_ide
                week_cloud |= cl
                review["weekly"][0] |= ra
                review["weekly"][1] |= rp
            month |= a | no_ide
            month_cloud |= cl
            month_chat |= ch
            month_agent |= ag
            review["monthly"][0] |= ra
            review["monthly"][1] |= rp
        record: dict[str, Any] = {
            "day": day.isoformat(),
            **self._ids(scope),
            "daily_active_users": active_today.bit_count(),
            "weekly_active_users": ((week & mask) | active_today).bit_count(),
            "monthly_active_users": ((month & mask) | active_today).bit_count(),
            "monthly_active_chat_users": ((month_chat & mask) | chat_today).bit_count(),
            "monthly_active_agent_users": ((month_agent & mask) | agent_today).bit_count(),
            "daily_active_cli_users": cli_today.bit_count(),
            self._name("daily_active_assistant_code_review_users"): review_active_today.bit_count(),
            self._name("daily_passive_assistant_code_review_users"): review_passive_today.bit_count(),
            self._cloud_name("daily_active_assistant_cloud_agent_users", day): cloud_today.bit_count(),
            self._cloud_name("weekly_active_assistant_cloud_agent_users", day): (
                (week_cloud & mask) | cloud_today).bit_count(),
            self._cloud_name("monthly_active_assistant_cloud_agent_users", day): (
                (month_cloud & mask) | cloud_today).bit_count(),
            self._name("daily_active_assistant_app_users"): app_today.bit_count(),
            "daily_active_vscode_agent_users": vscode_today.bit_count(),
        }
        for window, (window_active, window_passive) in review.items():
            reviewed = (window_active & mask) | review_active_today
            # Active trumps passive: a user with both signals in the window counts as active.
            passive = ((window_passive & mask) | review_passive_today) & ~reviewed
            record[self._name(f"{window}_active_assistant_code_review_users")] = reviewed.bit_count()
            record[self._name(f"{window}_passive_assistant_code_review_users")] = passive.bit_count()
        record.update(zip(COUNT_FIELDS, totals, strict=True))
        pulls = [self._pull_requests("organization", day, c, (ide_active & ((1 << self.users) - 1)).bit_count())]
        if scope == "enterprise":  # its organizations' pull requests (emulator/repos.py), each drawn on its own
            pulls.append(self._pull_requests("labs", day, c, (ide_active >> self.users).bit_count()))
        record["pull_requests"] = pulls[0] if len(pulls) == 1 else combine(pulls, self._name)
        record["totals_by_ide"] = [{"ide": k, **count_dict(v)} for k, v in sorted(by_ide.items())]
        record.update(aggregate_breakdowns(cells, feature_rows))
        if cli_present:
            record["totals_by_cli"] = cli_dict(cli_sums)
        if app_today:
            record[self._name("totals_by_assistant_app")] = app_dict(app_sums)
        if vscode_today:
            record["totals_by_vscode_agent"] = vscode_dict(vscode_sums)
        if phases:
            record["totals_by_ai_adoption_phase"] = self._phase_entries(phases, record["pull_requests"])
        if customized:
            # The scope's five most used of each category, and how many different ones were used.
            top = {category: sorted(names.items(), key=lambda kv: (-kv[1], kv[0]))[:5]
                   for category, names in customized.items()}
            record.update(json.loads("{" + customization_json(
                top, distinct={k: len(v) for k, v in customized.items()})[1:] + "}"))
        if agents:
            record["totals_by_3rd_party_agent"] = [
                {"agent_id": a, "agent_name": self.agent_name(agent_id=a, day=day),
                 "user_initiated_interaction_count": j, "session_count": s}
                for a, (j, s) in sorted(agents.items())
            ]
        if self._has_internal_fields(day):
            record["etl_id"] = f"{_key('etl', self.seed, scope, day.toordinal()):016x}"
            record["day_partition"] = day.isoformat()
        return record

    def _phase_entries(self, phases: dict[int, list[int]], pulls: dict[str, Any]) -> list[dict[str, Any]]:
        """Each phase's users and averages per user of the phase, as the service gives them
        (never sums). The scope's pull requests are shared out by phase, later phases weighing
        more (users of several agents open and merge more)."""
        weights = {phase: users * (1 + phase) for phase, (users, *_) in phases.items()}
        whole = sum(weights.values())
        created, merged, reviewed = (pulls[self._name(k)] for k in ("total_created", "total_merged", "total_reviewed"))
        median = pulls[self._name("median_minutes_to_merge")]
        entries = []
        for phase, (users, *totals) in sorted(phases.items()):
            share = weights[phase] / whole
            entry: dict[str, Any] = {
                "phase": PHASE_LABELS[phase], "phase_number": phase, "total_engaged_users": users,
                "total_pull_requests_merged": int(merged * share),
                **{name: round(total / users, 2) for name, total in zip(_PHASE_AVERAGES, totals, strict=True)},
                "avg_pull_requests_created": round(created * share / users, 2),
                "avg_pull_requests_merged": round(merged * share / users, 2),
                "avg_pull_requests_reviewed": round(reviewed * share / users, 2),
            }
            if median is not None:
                entry["avg_pull_requests_median_minutes_to_merge"] = round(median * (1.2 - 0.1 * phase), 1)
                entry["avg_pull_requests_minutes_to_review"] = round(median * 0.3 * (1.1 - 0.1 * phase), 1)
                entry["avg_pull_requests_review_cycles"] = round(1 + 0.25 * (3 - phase), 2)
            entries.append(entry)
        return entries

    def _pull_requests(self, scope: str, day: date, c: float, active: int) -> dict[str, Any]:
        rng = random.Random(_key("pulls", self.seed, scope, day.toordinal()))
        created = int(active * rng.uniform(0.3, 0.8))
        merged = int(created * rng.uniform(0.5, 0.9))
        reviewed = int(created * rng.uniform(0.6, 1.0))
        suggestions = int(reviewed * rng.uniform(1.0, 4.0))
        applied = int(suggestions * rng.uniform(0.2, 0.6))
        by_assistant = int(created * rng.uniform(0.05, 0.3))
        reviewed_by_assistant = int(reviewed * rng.uniform(0.1, 0.5))
        median = round(rng.uniform(25.0, 900.0), 1)
        merged_by_assistant = min(merged, int(by_assistant * rng.uniform(0.4, 0.9)))
        merged_reviewed = min(merged, int(reviewed_by_assistant * rng.uniform(0.4, 0.9)))
        assistant_suggestions = int(suggestions * rng.uniform(0.3, 0.7))
        assistant_applied = min(applied, int(assistant_suggestions * rng.uniform(0.2, 0.6)))
        scaled = [int(n * c) for n in (created, reviewed, merged, suggestions, applied, by_assistant,
                                       reviewed_by_assistant, merged_by_assistant, merged_reviewed,
                                       assistant_suggestions, assistant_applied)]
        pulls = {
            "total_created": scaled[0],
            "total_reviewed": scaled[1],
            "total_merged": scaled[2],
            "median_minutes_to_merge": median if scaled[2] else None,
            "total_suggestions": scaled[3],
            "total_applied_suggestions": scaled[4],
            "total_created_by_assistant": scaled[5],
            "total_reviewed_by_assistant": scaled[6],
            "total_merged_created_by_assistant": scaled[7],
            "total_merged_reviewed_by_assistant": scaled[8],
            "median_minutes_to_merge_assistant_authored": round(median * rng.uniform(0.5, 1.2), 1)
            if scaled[7]
            else None,
            "median_minutes_to_merge_assistant_reviewed": round(median * rng.uniform(0.6, 1.1), 1)
            if scaled[8]
            else None,
            "total_assistant_suggestions": scaled[9],
            "total_assistant_applied_suggestions": scaled[10],
        }
        named: dict[str, Any] = {self._name(k): v for k, v in pulls.items()}
        # The assistant's suggestions per comment type: the day's totals shared out by type.
        weights = [1 + rng.randrange(5) for _ in COMMENT_TYPES]
        named[self._name("assistant_suggestions_by_comment_type")] = [
            {"comment_type": kind, self._name("total_assistant_suggestions"): suggested,
             self._name("total_assistant_applied_suggestions"): applied}
            for kind, suggested, applied in zip(COMMENT_TYPES, split(scaled[9], weights), split(scaled[10], weights),
                                                strict=True)
            if suggested
        ]
        return named


_AGENT_NAMES = dict(AGENTS)
_REVIEW_JSON = {(True, False): ("true", "false"), (False, True): ("false", "true"), (False, False): ("null", "null")}


@lru_cache(maxsize=4096)
def _agents_day(seed: int, ordinal: int) -> bool:
    return _key("agents-day", seed, ordinal) % 100 >= NO_AGENT_DAY_PERCENT
