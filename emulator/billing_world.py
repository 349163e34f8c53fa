"""What the emulated service bills: one line per user, day, SKU and model, derived from the same
user-days the usage reports are written from (emulator/userday.py), priced, and with each seat's
monthly included allowance taken off as a discount (docs/emulator.md, "Billing").

- Chat credits: the credits behind a user's `ai_credits_used` (emulator/userlines.py,
  `feature_credits`), per usage-report model, under the billing model name of `BILLING_MODELS`,
  times 1 ± 2% (deterministic per user-day from the seed).
- SKUs the usage signal does not hold: the coding agent's (on a day the user's cloud agent ran)
  and Spark's (a few users, some active days).
- Users whose telemetry is off: `quiet_users(users)` accounts of the organization, absent from
  every report and seat listing, billed like the others.
- Meters: AI credits ($0.01, `ai-credits`) from AI_CREDITS_FROM; premium requests ($0.04,
  `requests`) before it.
- Month closing: a month is provisional until 00:00 UTC on the 4th of the next month by the
  emulator's clock; until then a day answers `open_share` of its final quantity (late usage),
  after it the final quantity, forever.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta
from decimal import Decimal
from functools import lru_cache

from emulator.dayrecord import UserDay
from emulator.population import Population, key
from emulator.reportdata import ReportData
from emulator.userday import UserDays
from emulator.userlines import feature_credits

AI_CREDITS_FROM = date(2026, 6, 1)
HISTORY_MONTHS = 24
CENT = Decimal("0.01")
# Usage-report model id -> the name the bill gives it.
BILLING_MODELS: dict[str, str] = {
    "gpt-4.1": "GPT-4.1",
    "gpt-5-mini": "GPT-5 mini",
    "gpt-5": "GPT-5",
    "gpt-5-codex": "GPT-5-Codex",
    "claude-sonnet-4.5": "Claude Sonnet 4.5",
    "gemini-2.5-pro": "Gemini 2.5 Pro",
    "unknown": "Auto: Claude Haiku 4.5",  # the model picker's choice: the reports cannot name it
}
CODING_AGENT_MODEL = "GPT-5.2"  # billed only: no usage report names it
SPARK_MODEL = "Claude Sonnet 4.5"


@dataclass(frozen=True)
class Meter:
    name: str  # ai_credit | premium_request
    unit_type: str
    price: Decimal
    allowance: Decimal  # included per seat and month, in units
    skus: dict[str, tuple[str, str] | None]  # kind -> (product, sku), service-dialect words


AI_CREDIT = Meter(
    "ai_credit",
    "ai-credits",
    Decimal("0.01"),
    Decimal(50),
    {
        "chat": ("assistant", "assistant_ai_credit"),
        "coding_agent": ("assistant", "coding_agent_ai_credit"),
        "spark": ("spark", "spark_ai_credit"),
    },
)
PREMIUM_REQUEST = Meter(
    "premium_request",
    "requests",
    Decimal("0.04"),
    Decimal(100),
    {
        "chat": ("assistant", "assistant_premium_request"),
        "coding_agent": ("assistant", "coding_agent_premium_request"),
        "spark": None,
    },
)
METERS = {m.name: m for m in (AI_CREDIT, PREMIUM_REQUEST)}
_KIND_ORDER = {"chat": 0, "coding_agent": 1, "spark": 2}
_LATE = {0: Decimal("0.5"), 1: Decimal("0.6"), 2: Decimal("0.75"), 3: Decimal("0.9")}
_OPEN_SHARE = Decimal("0.98")  # an open month's older days: 2% of usage posts late


def meter_of(day: date) -> Meter:
    return AI_CREDIT if day >= AI_CREDITS_FROM else PREMIUM_REQUEST


def month_start(day: date) -> date:
    return day.replace(day=1)


def next_month(first: date) -> date:
    return (first + timedelta(days=32)).replace(day=1)


def closes_on(day: date) -> date:
    """The day at whose 00:00 UTC the month of `day` closes: the 4th of the next month."""
    return next_month(month_start(day)) + timedelta(days=3)


def month_closed(day: date, today: date) -> bool:
    return today >= closes_on(day)


def months_back(day: date, today: date) -> int:
    return (today.year - day.year) * 12 + today.month - day.month


def open_share(day: date, today: date) -> Decimal:
    """The share of a day's final quantity billed so far (1 once its month is closed)."""
    if month_closed(day, today):
        return Decimal(1)
    return _LATE.get((today - day).days, _OPEN_SHARE)


def quiet_users(users: int) -> int:
    """How many accounts of an organization have telemetry off (billed, never reported)."""
    return max(2, users // 20)


@dataclass(frozen=True, slots=True)
class Usage:
    """A user-day's final quantity of one kind and model, in the meter's units."""

    login: str
    org: str
    kind: str
    model: str
    quantity: Decimal
    user: int  # global index (reported users), or -1 - i for quiet user i


@dataclass(frozen=True, slots=True)
class Line:
    """One billed line: a user, day, SKU and model, its gross and discount in units."""

    day: date
    login: str
    org: str
    user: int
    product: str
    sku: str
    model: str
    meter: Meter
    gross: Decimal
    discount: Decimal

    @property
    def net(self) -> Decimal:
        return self.gross - self.discount

    def amounts(self) -> tuple[Decimal, Decimal, Decimal]:
        price = self.meter.price
        return self.gross * price, self.discount * price, self.net * price


class BillingBook:
    """The bill of one report data set (an organization and its enterprise)."""

    def __init__(self, data: ReportData) -> None:
        self.data = data
        people = data.people
        self.seed = people.seed
        self.quiet = Population(
            seed=key("quiet", people.seed),
            users=quiet_users(people.users),
            org=people.org,
            enterprise=people.enterprise,
            first_day=people.first_day,
            dialect="service",
            cloud_agent_from=people.cloud_agent_from,
        )
        self.quiet_days = UserDays(self.quiet)
        self.quiet_logins = tuple(f"{people.org}-quiet-{i:02d}" for i in range(self.quiet.users))
        self._day = lru_cache(maxsize=2048)(self._make_day)
        # A month's lines as the bill reads on a day, worked out once: every day and cost center
        # of the month asks for them (a 15,000-user enterprise's month took minutes, call by call).
        self._month = lru_cache(maxsize=2)(self._whole_month)

    def identity(self, user: int) -> tuple[str, str]:
        """(login, organization) of a billed user."""
        people = self.data.people
        if user < 0:
            return self.quiet_logins[-1 - user], people.org
        login, _ = people.login_and_id(user)
        return login, people.org if user < people.users else people.second_org

    def users(self, scope: str) -> list[int]:
        reported = list(self.data.people.scope_users(scope))
        return reported + [-1 - i for i in range(self.quiet.users)]

    def _user_day(self, user: int, day: date) -> UserDay:
        if user >= 0:
            return self.data.days.user_day(user, day, 1.0)
        return self.quiet_days.user_day(-1 - user, day, 1.0)

    def _make_day(self, day: date) -> tuple[Usage, ...]:
        """Every billed user's final usage of `day` (the enterprise's users; quiet ones last)."""
        out: list[Usage] = []
        ordinal = day.toordinal()
        for user in self.users("enterprise"):
            login, org = self.identity(user)
            d = self._user_day(user, day)
            by_model: dict[str, float] = {}
            for model, credits in feature_credits(d):
                by_model[model] = by_model.get(model, 0.0) + credits
            jitter = Decimal(int(key("billed", self.seed, user, ordinal) % 4001) - 2000) / Decimal(100_000)
            for model, credits in sorted(by_model.items()):
                quantity = (Decimal(repr(credits)) * (1 + jitter)).quantize(CENT)
                if quantity > 0:
                    out.append(Usage(login, org, "chat", BILLING_MODELS[model], quantity, user))
            if d.cloud_agent:
                runs = Decimal(5 + key("coding-agent", self.seed, user, ordinal) % 36)
                out.append(Usage(login, org, "coding_agent", CODING_AGENT_MODEL, runs, user))
            if d.active and key("spark", self.seed, user) % 6 == 0 and key("spark", self.seed, user, ordinal) % 3 == 0:
                apps = Decimal(2 + key("spark-size", self.seed, user, ordinal) % 18)
                out.append(Usage(login, org, "spark", SPARK_MODEL, apps, user))
        return tuple(out)

    def lines(self, start: date, end: date, today: date) -> list[Line]:
        """The billed lines of the enterprise's users of days start .. end, as the bill reads on
        `today` (no day from today on)."""
        out: list[Line] = []
        first = month_start(start)
        while first <= end:
            out.extend(line for line in self._month_lines(first, end, today) if line.day >= start)
            first = next_month(first)
        return out

    def _month_lines(self, first: date, until: date, today: date) -> list[Line]:
        """The lines of `first`'s month through `until` (a day's lines do not depend on the days
        after it, so they are the whole month's up to it)."""
        return [line for line in self._month(first, today) if line.day <= until]

    def _whole_month(self, first: date, today: date) -> list[Line]:
        """The lines of `first`'s month as the bill reads on `today`: the discount is each user's
        monthly allowance, taken in day, SKU and model order."""
        left: dict[int, Decimal] = {}
        lines: list[Line] = []
        day = first
        last = min(next_month(first) - timedelta(days=1), today - timedelta(days=1))
        while day <= last:
            meter = meter_of(day)
            share = open_share(day, today)
            for usage in sorted(self._day(day), key=lambda u: (u.user, _KIND_ORDER[u.kind], u.model)):
                sku = meter.skus[usage.kind]
                if sku is None:
                    continue
                gross = usage.quantity if share == 1 else (usage.quantity * share).quantize(CENT)
                remaining = left.get(usage.user, meter.allowance)
                discount = min(remaining, gross)
                left[usage.user] = remaining - discount
                lines.append(Line(day, usage.login, usage.org, usage.user, *sku, usage.model, meter, gross, discount))
            day += timedelta(days=1)
        return lines
