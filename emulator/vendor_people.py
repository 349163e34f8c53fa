"""Who uses the vendors a team also buys directly (Claude Code, Cursor), and on which days
(docs/emulator.md, "Vendors"). The people are the primary enterprise's users (the organization's,
then `{org}-labs`'), each under the email a seat shows when given (emulator/seat.py `holder`;
a vendor knows the address even where the seat keeps it private), and a few outsiders the
service has no account for. Everything follows from (seed, vendor, person, day).

- Claude Code: about 60% of the users whose profile starts a Claude agent app through the
  service, about 25% of the others, and the even outsiders.
- Cursor: the seat holders who never use the service's assistant (u % 20 == 19) and the lapsed
  ones from the day they lapsed (u % 20 == 9), about 25% of the others, and two outsiders in three.
- A person's days: weekdays at the person's rate (35%, 60% or 85%), weekends a quarter of it.
- Lag: a day's figures are `share(day, today)` of their final values (today 40%, yesterday
  85%), final from the day after yesterday on; days after today have none.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta
from functools import lru_cache

from emulator.config import VENDORS
from emulator.population import LAPSED_AT, LAPSED_EVERY, NEVER_ACTIVE_AT, NEVER_ACTIVE_EVERY, key
from emulator.reportdata import ReportData
from emulator.seat import holder
from emulator.vocabulary import AGENT_APPS

__all__ = ["FINAL_AFTER_DAYS", "VENDORS", "Person", "VendorPeople", "day_ms", "day_of_ms", "is_final", "share"]

FINAL_AFTER_DAYS = 2  # today's and yesterday's figures still grow
_SHARE = {0: 0.4, 1: 0.85}
_RATES = (350, 600, 850)  # out of 1000, weekdays
_CLAUDE_APPS = frozenset(i for i, (_, agent) in enumerate(AGENT_APPS) if agent == "2246796")


@dataclass(frozen=True, slots=True)
class Person:
    """A vendor's user: `index` is the global user index, or -1 - i for outsider i."""

    index: int
    name: str
    email: str

    @property
    def outsider(self) -> bool:
        return self.index < 0


def share(day: date, today: date) -> float:
    """The part of a day's final figures a vendor answers on `today` (0: none yet)."""
    age = (today - day).days
    if age < 0:
        return 0.0
    return _SHARE.get(age, 1.0)


def is_final(day: date, today: date) -> bool:
    return (today - day).days >= FINAL_AFTER_DAYS


def day_ms(day: date) -> int:
    """Epoch milliseconds of the day's 00:00 UTC (Cursor's `date`)."""
    return (day - date(1970, 1, 1)).days * 86_400_000


def day_of_ms(ms: int) -> date:
    return date(1970, 1, 1) + timedelta(days=ms // 86_400_000)


class VendorPeople:
    """The vendors' people of one report data set (the primary organization and its enterprise)."""

    def __init__(self, data: ReportData) -> None:
        people = data.people
        self.seed = people.seed
        self.users = people.users
        self.total = people.total
        self.first_day = people.first_day
        self.lapse_day = people.lapse_day
        self.org_id = people.organization_id
        self._profile = people.profile
        self.outsiders = max(2, people.users // 25)
        self._roster = lru_cache(maxsize=4)(self._make_roster)

    def person(self, index: int) -> Person:
        if index < 0:
            i = -1 - index
            return Person(index, f"Contractor {i + 1:02d}", f"contractor{i + 1:02d}@contractors.example")
        name, email = holder(index)
        return Person(index, name, email)

    def uses(self, vendor: str, index: int) -> bool:
        if index < 0:
            i = -1 - index
            return i % 2 == 0 if vendor == "claude" else i % 3 != 2
        draw = key("vendor-user", self.seed, vendor, index) % 100
        if vendor == "claude":
            claude_app = bool(_CLAUDE_APPS & set(self._profile(index).apps))
            return draw < (60 if claude_app else 25)
        if index < self.users and index % NEVER_ACTIVE_EVERY == NEVER_ACTIVE_AT:
            return True
        if index < self.users and index % LAPSED_EVERY == LAPSED_AT:
            return True
        return draw < 25

    def roster(self, vendor: str) -> tuple[Person, ...]:
        """Everyone who uses the vendor, by email."""
        return self._roster(vendor)

    def _make_roster(self, vendor: str) -> tuple[Person, ...]:
        indices = [*range(self.total), *(-1 - i for i in range(self.outsiders))]
        return tuple(sorted((self.person(u) for u in indices if self.uses(vendor, u)), key=lambda p: p.email))

    def active(self, vendor: str, index: int, day: date) -> bool:
        """Whether the person used the vendor on `day` (history from first_day; the lapsed turn
        to Cursor the day they stop using the service's assistant)."""
        if day < self.first_day:
            return False
        lapsed = 0 <= index < self.users and index % LAPSED_EVERY == LAPSED_AT
        if vendor == "cursor" and lapsed and day < self.lapse_day:
            return False
        rate = _RATES[key("vendor-rate", self.seed, vendor, index) % len(_RATES)]
        if day.weekday() >= 5:
            rate //= 4
        return key("vendor-day", self.seed, vendor, index, day.toordinal()) % 1000 < rate

    def pick(self, vendor: str, index: int, options: tuple[str, ...]) -> str:
        """A value that stays the same for a person (their terminal, model, client version)."""
        return options[key("vendor-pick", self.seed, vendor, index, options) % len(options)]
