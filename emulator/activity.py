"""Who was active when, over all users of a population: a day's bit masks (active in the IDE,
chat, agent mode, code review, the cloud agent, active with no IDE activity) that the
aggregates' weekly and monthly counts and the 28-day report's engagement are unions of, and
each user's last active day and editor that the seat listings show."""

from __future__ import annotations

from datetime import date, timedelta
from functools import lru_cache

from emulator import misattribution, telemetry
from emulator.population import BLOCK, Population
from emulator.userday import BYTES_PER_USER, UserDays, active_on
from emulator.vocabulary import IDES

# A seat's last activity is kept this many days (older: null), as on the public service.
LAST_ACTIVITY_DAYS = 90


class Activity:
    """The day masks and last activity of a population's users (final data)."""

    def __init__(self, people: Population, days: UserDays) -> None:
        self.people = people
        self.days = days
        self.day_flags = lru_cache(maxsize=64)(self._make_day_flags)
        self._last_active = lru_cache(maxsize=4)(self._make_last_active)

    def last_active_days(self, today: date) -> tuple[date | None, ...]:
        """Per global user, the last day before `today` the user was active (None: not in the
        LAST_ACTIVITY_DAYS before it). Cached per `today`."""
        return self._last_active(today)

    def editor_on(self, u: int, day: date) -> str:
        """`{ide}/{ide_version}/{plugin}/{plugin_version}` of user u's activity on `day`."""
        p = self.people.profile(u)
        b = self.days.day_block(day.toordinal(), u // BLOCK)
        ide = p.ides[b[(u % BLOCK) * BYTES_PER_USER + 5] % len(p.ides)]
        return f"{ide}/{p.ide_versions[p.ides.index(ide)]}/{IDES[ide][2]}/{p.plugin_version}"

    def _make_last_active(self, today: date) -> tuple[date | None, ...]:
        # Only the per-day activity byte is read, and a user found active drops out, so a
        # listing costs one pass over the users for the first days and little after.
        total = self.people.total
        profiles = [self.people.profile(u) for u in range(total)]
        found: list[date | None] = [None] * total
        remaining = list(range(total))
        for back in range(1, LAST_ACTIVITY_DAYS + 1):
            if not remaining:
                break
            day = today - timedelta(days=back)
            ordinal, weekend = day.toordinal(), day.weekday() >= 5
            blocks: dict[int, bytes] = {}
            still = []
            for u in remaining:
                block = u // BLOCK
                b = blocks.get(block)
                if b is None:
                    b = blocks[block] = self.days.make_day_block(ordinal, block)
                if active_on(profiles[u], b, (u % BLOCK) * BYTES_PER_USER, weekend, ordinal):
                    found[u] = day
                else:
                    still.append(u)
            remaining = still
        return tuple(found)

    def _make_day_flags(self, day: date) -> tuple[int, int, int, int, int, int, int]:
        """Bit masks over global users of who was active in the IDE, used chat, used agent mode,
        was an active and a passive code review user, used the cloud agent, and was active with
        no IDE activity (server-side only or desktop app only) (final)."""
        ordinal = day.toordinal()
        weekend = day.weekday() >= 5
        agents_day = self.people.has_agent_activity(day)
        active_mask = chat_mask = agent_mask = review_active_mask = review_passive_mask = cloud_mask = 0
        no_ide_mask = 0
        classes = day >= telemetry.SERVER_SIDE_FROM  # no user is active without the IDE before
        for u in range(self.people.total):
            b = self.days.day_block(ordinal, u // BLOCK)
            p = self.people.profile(u)
            o = (u % BLOCK) * BYTES_PER_USER
            active, chat, agent_mode, _, _, review_active, review_passive = self.days.flags(
                p, b, o, weekend, agents_day, ordinal
            )
            if not active:
                if classes and p.active_threshold and ordinal < p.active_until:
                    cb = self.days.class_block(ordinal, u // BLOCK)
                    kind = telemetry.day_class(cb, (u % BLOCK) * telemetry.CLASS_BYTES, day)
                    # App-only days served as the CLI's (September 2026) count as CLI-only ones.
                    as_cli = kind == "app" and misattribution.app_as_cli(
                        self.days.shift_block(ordinal, u // BLOCK), (u % BLOCK) * misattribution.SHIFT_BYTES, day
                    )
                    no_ide_mask |= (kind is not None and not as_cli) << u
                continue
            active_mask |= 1 << u
            review_active_mask |= review_active << u
            review_passive_mask |= review_passive << u
            ide = p.ides[b[o + 5] % len(p.ides)]
            cloud, _, _ = self.days.surfaces.flags(u, p, ordinal, active=True, agent_mode=agent_mode, ide=ide)
            cloud_mask |= cloud << u
            if chat:
                chat_mask |= 1 << u
                # IDE agent sessions missing or counted as CLI (October 2026) are no agent day.
                agent_mask |= (agent_mode and not misattribution.agent_moved(self.people.seed, u, ide, day)) << u
        return active_mask, chat_mask, agent_mask, review_active_mask, review_passive_mask, cloud_mask, no_ide_mask
