"""What the emulated Cursor Admin API holds (docs/vendors.md, "What each vendor sends"): the team's
members, one daily usage record per member and day (every member every day, `isActive` false and
zeros on a day without use), and each member's spend in the current billing cycle (the calendar
month of the emulator's today), from (seed, person, day), scaled by the lag
(emulator/vendor_people.py `share`).

An active member-day's final figures: 40 to 500 tabs shown, 20% to 45% accepted; accepted lines
from the tabs and the applies, total lines adding what the member typed; composer, chat and
agent requests, of which the subscription includes what the member's plan covers and the rest
are usage-based (heavy members only); `mostUsedModel` and the extensions a member keeps. A
member-day's spend is its usage-based requests at 4 cents; a cycle's spend the sum of its days
as answered, so the spend equals the daily usage's sum on any day.
"""

from __future__ import annotations

import random
from datetime import date, timedelta
from typing import Any

from emulator.population import key
from emulator.vendor_people import Person, VendorPeople, day_ms, share

CENTS_PER_USAGE_BASED_REQUEST = 4
MODELS = ("claude-4.5-sonnet", "gpt-5", "default", "claude-4.1-opus", "gemini-2.5-pro", "gpt-5-codex")
EXTENSIONS = (".ts", ".tsx", ".py", ".go", ".rs", ".java", ".kt")
CLIENT_VERSIONS = ("2.0.77", "2.1.6", "2.1.20", "2.2.3")
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

    def members(self) -> list[dict[str, str]]:
        """`teamMembers`: the first by email is the owner, as one admin holds the team."""
        roster = self.people.roster("cursor")
        return [
            {"name": p.name, "email": p.email, "role": "owner" if n == 0 else "member"} for n, p in enumerate(roster)
        ]

    def daily(self, first: date, last: date, *, today: date) -> list[dict[str, Any]]:
        """Every member's record of each day first .. last the vendor holds on `today` (history
        from first_day, none after today), by day, then email."""
        out: list[dict[str, Any]] = []
        day = max(first, self.people.first_day)
        while day <= min(last, today):
            out.extend(self._record(person, day, share(day, today)) for person in self.people.roster("cursor"))
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
        record: dict[str, Any] = {"date": day_ms(day), "isActive": active, **counts}
        record["mostUsedModel"] = pick("cursor", person.index, MODELS) if active else ""
        if active:
            record["applyMostUsedExtension"] = pick("cursor-apply", person.index, EXTENSIONS)
            record["tabMostUsedExtension"] = pick("cursor-tab", person.index, EXTENSIONS)
            record["clientVersion"] = pick("cursor-client", person.index, CLIENT_VERSIONS)
        record["email"] = person.email
        return record

    def spend(self, *, today: date) -> tuple[int, list[dict[str, Any]]]:
        """(subscriptionCycleStart, each member's spend this cycle) as answered on `today`, with
        the day of the member's last use in the cycle (for sorting by date), in roster order."""
        cycle = today.replace(day=1)
        by_email = {p.email: p for p in self.people.roster("cursor")}
        totals: dict[str, list[int]] = {email: [0, 0, 0] for email in by_email}
        for record in self.daily(cycle, today, today=today):
            total = totals[record["email"]]
            total[0] += record["usageBasedReqs"] * CENTS_PER_USAGE_BASED_REQUEST
            total[1] += record["subscriptionIncludedReqs"]
            if record["isActive"]:
                total[2] = record["date"]
        members = []
        for member in self.members():
            spend_cents, fast, last_used = totals[member["email"]]
            person = by_email[member["email"]]
            limit = 100 if key("cursor-limit", self.people.seed, person.index) % 7 == 0 else 0
            members.append(
                {
                    "spendCents": spend_cents,
                    "fastPremiumRequests": fast,
                    "name": member["name"],
                    "email": member["email"],
                    "role": member["role"],
                    "hardLimitOverrideDollars": limit,
                    "_last_used": last_used,
                }
            )
        return day_ms(cycle), members
