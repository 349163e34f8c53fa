"""Who is in the emulated organization and enterprise: each user's identity and profile (what
stays the same for a user from day to day), the scopes' sizes and ids, and the names a record
of a scope and day carries (the dialect's, the renamed agent's, the cloud agent's).

Global user indices: the organization's users 0 .. users-1, then the enterprise's second
organization's. Every value follows from (seed, user index): a profile is one slice of a
per-seed byte stream, in blocks of users, so any user range is made on its own.
"""

from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass
from datetime import date, timedelta
from functools import lru_cache

from emulator.dialect import wire_for
from emulator.errors import EmulatorError
from emulator.vocabulary import (
    AGENT_MODELS,
    AGENT_NAMES,
    APP_TABLE,
    CHAT_FEATURES,
    CHAT_MODELS,
    CLI_VERSIONS,
    IDE_NAMES,
    IDE_TABLE,
    IDES,
    LANGUAGES,
    PLUGIN_VERSIONS,
    RENAMED_AGENT_ID,
    RENAMED_AGENT_NEW_NAME,
)

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

# Share of days (per seed) with no third-party agent activity anywhere, and with internal fields.
NO_AGENT_DAY_PERCENT = 15
INTERNAL_FIELDS_DAY_PERCENT = 20

_PROFILE_BYTES = 40
# Random bytes come in blocks of this many users, so a user range costs only its own blocks.
BLOCK = 1024


def key(*parts: object) -> int:
    """A stable 64-bit number for the parts: the seed of every stream of the emulated data."""
    digest = hashlib.blake2b(repr(parts).encode(), digest_size=8).digest()
    return int.from_bytes(digest, "little")


@dataclass(frozen=True, slots=True)
class Profile:
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


class Population:
    """The users of one emulated organization and its enterprise, and their scopes' names."""

    def __init__(
        self,
        *,
        seed: int,
        users: int,
        org: str,
        enterprise: str,
        first_day: date,
        dialect: str,
        cloud_agent_from: date | None,
    ) -> None:
        if users < 1:
            raise EmulatorError("users must be at least 1")
        self.seed = seed
        self.users = users
        self.org = org
        self.enterprise = enterprise
        self.first_day = first_day
        self.name = wire_for(dialect).record_name
        # The day the service renamed its "coding agent" the "cloud agent" (April 2026): records of
        # earlier days carry the old field names. None: every day has the new ones.
        self.cloud_agent_from = cloud_agent_from
        self.second_org = f"{org}-labs"
        self.second_org_users = max(1, users // 2)
        self.rename_day = first_day + timedelta(days=RENAME_OFFSET_DAYS)
        self.lapse_day = first_day + timedelta(days=LAPSE_OFFSET_DAYS)
        self.organization_id = str(100_000 + key("org", seed, org) % 90_000_000)
        self.second_organization_id = str(100_000 + key("org", seed, self.second_org) % 90_000_000)
        self.enterprise_id = str(1_000 + key("enterprise", seed, enterprise) % 900_000)
        self.total = users + self.second_org_users
        self._profiles: list[Profile | None] = [None] * self.total
        self._profile_block = lru_cache(maxsize=8)(self._make_profile_block)

    # ----- scopes -----------------------------------------------------------------------------

    def scope_size(self, scope: str) -> int:
        if scope == "organization":
            return self.users
        if scope == "enterprise":
            return self.total
        raise EmulatorError(f"unknown scope {scope!r}; expected organization or enterprise")

    def scope_users(self, scope: str) -> range:
        return range(self.scope_size(scope))

    def scope_mask(self, scope: str) -> int:
        return (1 << self.scope_size(scope)) - 1

    def ids(self, scope: str) -> dict[str, str]:
        """The entity ids a line of the scope names: an organization's lines name its enterprise
        too, as the service documents for an organization in an enterprise (every one here is)."""
        if scope == "organization":
            return {"organization_id": self.organization_id, "enterprise_id": self.enterprise_id}
        return {"enterprise_id": self.enterprise_id}

    # ----- what a day's records carry ----------------------------------------------------------

    def agent_name(self, agent_id: str, day: date) -> str:
        """The label an agent carries in reports of `day` (the renamed agent changes on rename_day)."""
        if agent_id == RENAMED_AGENT_ID and day >= self.rename_day:
            return RENAMED_AGENT_NEW_NAME
        return AGENT_NAMES[agent_id]

    def has_agent_activity(self, day: date) -> bool:
        """False on the days (about NO_AGENT_DAY_PERCENT of them) with no agent activity anywhere."""
        return _agents_day(self.seed, day.toordinal())

    def has_internal_fields(self, day: date) -> bool:
        return key("internal", self.seed, day.toordinal()) % 100 < INTERNAL_FIELDS_DAY_PERCENT

    def internal_user_fields(self, day: date) -> str:
        if not self.has_internal_fields(day):
            return ""
        return f',"day_partition":"{day.isoformat()}","entity_id_partition":{day.toordinal() % 64}'

    def renamed(self, day: date) -> bool:
        return self.cloud_agent_from is None or day >= self.cloud_agent_from

    def cloud_name(self, name: str, day: date) -> str:
        return self.name(name if self.renamed(day) else name.replace("cloud_agent", "coding_agent"))

    def phase(self, u: int, day: date) -> int:
        """The user's adoption phase (0 no cohort .. 3 multi-agent): stable for weeks, as a
        28-day window moves, re-drawn every 28 days."""
        return key("phase", self.seed, u, day.toordinal() // 28) % 4

    # ----- users ------------------------------------------------------------------------------

    def profile(self, u: int) -> Profile:
        profile = self._profiles[u]
        if profile is None:
            profile = self._make_profile(u)
            self._profiles[u] = profile
        return profile

    def login_and_id(self, u: int) -> tuple[str, int]:
        if u < self.users:
            # Same logins and ids as the emulator's world (owner, member, then dev-NNNNN).
            login = (f"{self.org}-admin", f"{self.org}-member")[u] if u < 2 else f"dev-{u - 2:05d}"
            return login, 1_000_002 + u
        i = u - self.users
        return f"{self.second_org}-dev-{i:05d}", 5_000_000 + i

    def _make_profile(self, u: int) -> Profile:
        # One slice of a per-seed byte stream per user: cheaper than a Random per user, and
        # still independent of which other users are generated.
        o = (u % BLOCK) * _PROFILE_BYTES
        pb = self._profile_block(u // BLOCK)[o : o + _PROFILE_BYTES]
        login, user_id = self.login_and_id(u)
        ides = [IDE_TABLE[pb[1]]]
        if pb[2] < 51:
            second = IDE_NAMES[pb[3] % 3]
            if second != ides[0]:
                ides.append(second)
        start = pb[5] % 12
        offsets = [0]
        for i in range((1, 1, 1, 2, 2, 3)[pb[4] % 6] - 1):
            offsets.append(offsets[-1] + 1 + pb[6 + i] % 3)
        languages = [LANGUAGES[(start + k) % 12] for k in offsets]
        if pb[8] < 31:
            languages.append("unknown")
        if pb[9] < 20:
            languages.append("others")
        raw = [0.45] + [0.1 + 0.4 * pb[10 + i] / 255 for i in range(len(languages) - 1)]
        total = sum(raw)
        chat_features = [f for i, f in enumerate(CHAT_FEATURES[:3]) if pb[13 + i] < 102][:2]
        chat_features += [f for i, f in enumerate(CHAT_FEATURES[3:]) if pb[16 + i] < 15][:1]
        if not chat_features:
            chat_features = [CHAT_FEATURES[pb[18] % 3]]
        agent_user = pb[19] < 115
        apps = tuple(sorted({APP_TABLE[pb[21 + i]] for i in range((1, 2, 3)[pb[20] % 3])})) if agent_user else ()
        active_threshold = (200, 200, 200, 200, 200, 140, 140, 140, 140, 140, 140, 70, 70, 70, 70, 70, 20, 20, 20, 20)[
            pb[0] % 20
        ]
        active_until = _NO_END
        if u < self.users and u % NEVER_ACTIVE_EVERY == NEVER_ACTIVE_AT:
            active_threshold = 0
        elif u < self.users and u % LAPSED_EVERY == LAPSED_AT:
            active_threshold = max(active_threshold, _LAPSED_THRESHOLD)
            active_until = self.lapse_day.toordinal()
        return Profile(
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
            ide_versions=tuple(IDES[name][1][pb[32 + i] % len(IDES[name][1])] for i, name in enumerate(ides)),
            plugin_version=PLUGIN_VERSIONS[pb[34] % len(PLUGIN_VERSIONS)],
            cli_version=CLI_VERSIONS[pb[37] % len(CLI_VERSIONS)],
            sampled_time=f"T{7 + pb[24] % 13:02d}:{pb[25] % 60:02d}:{pb[26] % 60:02d}.{pb[27] * 37 % 1000:03d}Z",
            languages=tuple(languages),
            language_weights=tuple(w / total for w in raw),
            chat_features=tuple(chat_features),
            chat_model=CHAT_MODELS[pb[35] % len(CHAT_MODELS)],
            agent_model=AGENT_MODELS[pb[36] % len(AGENT_MODELS)],
            apps=apps,
            cloud_agent_threshold=(0, 0, 35, 90)[pb[38] % 4],
            app_threshold=(0, 0, 0, 60)[pb[39] % 4],
        )

    def _make_profile_block(self, block: int) -> bytes:
        return random.Random(key("profiles", self.seed, block)).randbytes(BLOCK * _PROFILE_BYTES)


@lru_cache(maxsize=4096)
def _agents_day(seed: int, ordinal: int) -> bool:
    return key("agents-day", seed, ordinal) % 100 >= NO_AGENT_DAY_PERCENT
