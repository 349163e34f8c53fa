"""What the emulated Cursor Admin API holds (docs/vendors.md, "What each vendor sends"): the team's
members, one daily usage record per member and day (`isActive` false, zeros and nulls on a day
without use), and each member's spend in the current billing cycle (the calendar month of the
emulator's today), from (seed, person, day), scaled by the lag (emulator/vendor_people.py `share`).

An active member-day's final figures: 40 to 500 tabs shown, 20% to 45% accepted; accepted lines
from the tabs and the applies, total lines adding what the member typed; composer, chat and
agent requests, of which the subscription includes what the member's plan covers and the rest
are usage-based (heavy members only); `mostUsedModel` and the extensions a member keeps. A
member's requests cost their rate (3.7 to 5.25 cents); a cycle's on-demand spend is its
usage-based requests at that rate, its overall spend all its requests, each the sum of its days
as answered, so the spend equals the daily usage's sum on any day.
"""

from __future__ import annotations

import hashlib
import random
from datetime import date, timedelta
from typing import Any

from emulator.population import key
from emulator.vendor_people import Person, VendorPeople, day_ms, share

RATES = (3.7, 4.1, 4.6, 5.25)  # cents a request, per member
TEAM_LIMIT_DOLLARS = 50  # the per-user limit where a member has none of their own
MODELS = ("claude-4.5-sonnet", "gpt-5", "default", "claude-4.1-opus", "gemini-2.5-pro", "gpt-5-codex")
EXTENSIONS = (".ts", ".tsx", ".py", ".go", ".rs", ".java", ".kt")
CLIENT_VERSIONS = ("2.0.77", "2.1.6", "2.1.20", "2.2.3")
_BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
COUNTS = (
    "totalLinesAdded",
    "totalLinesDeleted",
    "acceptedLinesAdded",
    "acceptedLinesDeleted",
    "totalApplies",
    "totalAccepts",
    "totalRejects",
    "totalTabsShown",
    "totalTabsAccepted",
    "composerRequests",
    "chatRequests",
    "agentRequests",
    "cmdkUsages",
    "subscriptionIncludedReqs",
    "apiKeyReqs",
    "usageBasedReqs",
    "bugbotUsages",
)


class CursorData:
    """The team's members, daily usage and spend."""

    def __init__(self, people: VendorPeople) -> None:
        self.people = people

    def user_id(self, person: Person) -> int:
        """The member's number in daily usage (`userId`)."""
        return 10_000 + key("cursor-user-id", self.people.seed, person.index) % 90_000_000

    def rate(self, person: Person) -> float:
        """What one of the member's requests costs, in cents."""
        return RATES[key("cursor-rate", self.people.seed, person.index) % len(RATES)]

    def encoded_id(self, person: Person) -> str:
        """The member's id in members and spend (`user_` and 28 letters and digits)."""
        digest = hashlib.blake2b(f"cursor-id:{self.people.seed}:{person.index}".encode(), digest_size=21).digest()
        n, letters = int.from_bytes(digest, "little"), []
        for _ in range(28):
            n, digit = divmod(n, 62)
            letters.append(_BASE62[digit])
        return "user_" + "".join(letters)

    def members(self) -> list[dict[str, Any]]:
        """`teamMembers`: the first by email is the owner, as one admin holds the team."""
        roster = self.people.roster("cursor")
        return [
            {
                "id": self.encoded_id(p),
                "name": p.name,
                "email": p.email,
                "role": "owner" if n == 0 else "member",
                "isRemoved": False,
            }
            for n, p in enumerate(roster)
        ]

    def daily(
        self, first: date, last: date, *, today: date, people: tuple[Person, ...] | None = None
    ) -> list[dict[str, Any]]:
        """The records of each day first .. last the vendor holds on `today` (history from
        first_day, none after today) of the given members (default: all), by day, then email."""
        out: list[dict[str, Any]] = []
        day = max(first, self.people.first_day)
        roster = self.people.roster("cursor") if people is None else people
        while day <= min(last, today):
            out.extend(self._record(person, day, share(day, today)) for person in roster)
            day += timedelta(days=1)
        return out

    def _counts(self, person: Person, day: date) -> dict[str, int]:
        """A member-day's final counts (all zero on a day without use)."""
        if not self.people.active("cursor", person.index, day):
            return dict.fromkeys(COUNTS, 0)
        rng = random.Random(key("cursor-day", self.people.seed, person.index, day.toordinal()))
        shown = rng.randint(40, 500)
        tabs = int(shown * rng.uniform(0.2, 0.45))
        applies = rng.randint(0, 60)
        accepts = int(applies * rng.uniform(0.6, 0.95))
        accepted_added = tabs * rng.randint(1, 3) + accepts * rng.randint(3, 25)
        accepted_deleted = int(accepted_added * rng.uniform(0.2, 0.6))
        composer, chat, agent = rng.randint(0, 40), rng.randint(0, 90), rng.randint(0, 30)
        requests = composer + chat + agent
        heavy = key("cursor-heavy", self.people.seed, person.index) % 4 == 0
        included = min(requests, rng.randint(20, 60)) if heavy else requests
        return {
            "totalLinesAdded": accepted_added + rng.randint(50, 800),
            "totalLinesDeleted": accepted_deleted + rng.randint(10, 300),
            "acceptedLinesAdded": accepted_added,
            "acceptedLinesDeleted": accepted_deleted,
            "totalApplies": applies,
            "totalAccepts": accepts,
            "totalRejects": applies - accepts,
            "totalTabsShown": shown,
            "totalTabsAccepted": tabs,
            "composerRequests": composer,
            "chatRequests": chat,
            "agentRequests": agent,
            "cmdkUsages": rng.randint(0, 50),
            "subscriptionIncludedReqs": included,
            "apiKeyReqs": 0,
            "usageBasedReqs": requests - included,
            "bugbotUsages": rng.randint(0, 4) if rng.random() < 0.3 else 0,
        }

    def _record(self, person: Person, day: date, part: float) -> dict[str, Any]:
        counts = {name: value if part >= 1 else int(value * part) for name, value in self._counts(person, day).items()}
        active = any(counts.values())
        pick = self.people.pick
        return {
            "userId": self.user_id(person),
            "day": day.isoformat(),
            "date": day_ms(day),
            "isActive": active,
            **counts,
            "mostUsedModel": pick("cursor", person.index, MODELS) if active else None,
            "applyMostUsedExtension": pick("cursor-apply", person.index, EXTENSIONS) if active else None,
            "tabMostUsedExtension": pick("cursor-tab", person.index, EXTENSIONS) if active else None,
            "clientVersion": pick("cursor-client", person.index, CLIENT_VERSIONS) if active else None,
            "email": person.email,
        }

    def spend(self, *, today: date) -> tuple[int, list[dict[str, Any]]]:
        """(subscriptionCycleStart, each member's spend this cycle) as answered on `today`, with
        the day of the member's last use in the cycle (for sorting by date), in roster order."""
        cycle = today.replace(day=1)
        seed = self.people.seed
        on_demand: dict[str, float] = {}
        overall: dict[str, float] = {}
        premium: dict[str, int] = {}
        last_used: dict[str, int] = {}
        rates = {p.email: self.rate(p) for p in self.people.roster("cursor")}
        for record in self.daily(cycle, today, today=today):
            email, rate = record["email"], rates[record["email"]]
            on_demand[email] = on_demand.get(email, 0.0) + record["usageBasedReqs"] * rate
            overall[email] = (
                overall.get(email, 0.0) + (record["usageBasedReqs"] + record["subscriptionIncludedReqs"]) * rate
            )
            premium[email] = premium.get(email, 0) + record["usageBasedReqs"]
            if record["isActive"]:
                last_used[email] = record["date"]
        members = []
        for person, member in zip(self.people.roster("cursor"), self.members(), strict=True):
            email = member["email"]
            hard = 100 if key("cursor-limit", seed, person.index) % 7 == 0 else 0
            monthly = 200 if key("cursor-monthly", seed, person.index) % 5 == 0 else None
            members.append(
                {
                    "userId": member["id"],
                    "spendCents": round(on_demand.get(email, 0.0), 6),
                    "overallSpendCents": round(overall.get(email, 0.0), 6),
                    "fastPremiumRequests": premium.get(email, 0),
                    "name": member["name"],
                    "email": email,
                    "role": member["role"],
                    "hardLimitOverrideDollars": hard,
                    "monthlyLimitDollars": monthly,
                    "effectivePerUserLimitDollars": hard or monthly or TEAM_LIMIT_DOLLARS,
                    "_last_used": last_used.get(email, 0),
                }
            )
        return day_ms(cycle), members
