"""The emulator's bill against its own usage reports: the chat credits of a user-day are the
signal's within 2%, the allowance is used up before anything is net, a closed month never
changes and an open one only grows, every line lies in one cost center or none."""

from __future__ import annotations

from collections import defaultdict
from datetime import date, timedelta
from decimal import Decimal

from hypothesis import given, settings
from hypothesis import strategies as st

from emulator.billing_centers import Centers
from emulator.billing_world import (
    AI_CREDITS_FROM,
    BILLING_MODELS,
    BillingBook,
    closes_on,
    meter_of,
    month_start,
    next_month,
)
from emulator.reportdata import ReportData
from emulator.userlines import feature_credits

TODAY = date(2026, 11, 20)
FIRST_DAY = TODAY - timedelta(days=60)
_BOOKS: dict[int, BillingBook] = {}


def _book(seed: int) -> BillingBook:
    if seed not in _BOOKS:
        _BOOKS[seed] = BillingBook(
            ReportData(seed=seed, users=30, org="acme", enterprise="acme-corp", first_day=FIRST_DAY)
        )
    return _BOOKS[seed]


seeds = st.integers(min_value=1, max_value=6)
days = st.dates(min_value=date(2025, 1, 1), max_value=TODAY - timedelta(days=1))


@settings(max_examples=25, deadline=None)
@given(seed=seeds, day=days)
def test_a_reported_user_days_chat_credits_are_its_ai_credits_used_within_two_percent(seed: int, day: date) -> None:
    book = _book(seed)
    chat = {"assistant_ai_credit", "assistant_premium_request"}
    billed: dict[int, Decimal] = defaultdict(Decimal)
    models: dict[int, int] = defaultdict(int)
    closed = book.lines(day, day, closes_on(day))  # the final bill of the day
    for line in closed:
        if line.sku in chat:
            billed[line.user] += line.gross
            models[line.user] += 1
    for user in book.data.people.scope_users("enterprise"):
        user_day = book.data.days.user_day(user, day, 1.0)
        signal = Decimal(repr(round(sum(credits for _, credits in feature_credits(user_day)), 2)))
        slack = signal * Decimal("0.02") + Decimal("0.005") * (models[user] + 1)
        assert abs(billed[user] - signal) <= slack, (user, day)
        assert {BILLING_MODELS[m] for m, credits in feature_credits(user_day) if credits} >= {
            line.model for line in closed if line.user == user and line.sku in chat
        }


@settings(max_examples=15, deadline=None)
@given(seed=seeds, day=days)
def test_nothing_is_net_until_a_users_monthly_allowance_is_used_up(seed: int, day: date) -> None:
    first = month_start(day)
    lines = _book(seed).lines(first, next_month(first) - timedelta(days=1), TODAY)
    allowance = meter_of(first).allowance
    gross: dict[int, Decimal] = defaultdict(Decimal)
    discount: dict[int, Decimal] = defaultdict(Decimal)
    for line in lines:
        assert line.gross - line.discount == line.net >= 0
        assert sum(line.amounts()[1:]) == line.amounts()[0] == line.gross * line.meter.price
        if line.net > 0:
            assert discount[line.user] + line.discount == allowance, "net before the allowance was used up"
        gross[line.user] += line.gross
        discount[line.user] += line.discount
    for user, total in gross.items():
        assert discount[user] == min(allowance, total)


@settings(max_examples=15, deadline=None)
@given(seed=seeds, day=st.dates(min_value=date(2025, 12, 1), max_value=TODAY - timedelta(days=1)))
def test_an_open_months_day_only_grows_as_the_clock_moves_and_a_closed_one_stays(seed: int, day: date) -> None:
    book = _book(seed)
    close = closes_on(day)
    clocks = [day + timedelta(days=n) for n in range(1, 6)] + [
        close - timedelta(days=1),
        close,
        close + timedelta(days=40),
    ]

    def gross_on(today: date) -> Decimal:
        return sum((line.gross for line in book.lines(day, day, today)), Decimal(0))

    seen = [gross_on(today) for today in sorted(clocks)]
    assert seen == sorted(seen)
    assert gross_on(close) == gross_on(close + timedelta(days=40)) == gross_on(close + timedelta(days=400))


@settings(max_examples=10, deadline=None)
@given(seed=seeds, day=days)
def test_a_line_lies_in_the_cost_center_whose_listed_resources_name_it_most_closely(seed: int, day: date) -> None:
    book = _book(seed)
    centers = Centers(book, "acme-corp")
    listed = {
        record["id"]: {(r["type"], r["name"]) for r in record["resources"]}
        for record in centers.center_records(TODAY, None)
    }
    assert any(not resources for resources in listed.values()), "the deleted one holds nothing"
    for line in book.lines(day, day, TODAY):
        names = [("User", line.login)]
        if line.user >= 0:
            team = book.data.teams.enterprise_team_of(line.user, line.day)
            names.append(("Team", team.slug_on(TODAY, book.data.rename_day)))
        names.append(("Organization", line.org))
        expected = next(
            (cid for name in names for cid, resources in listed.items() if name in resources),
            None,
        )
        center = centers.center_of(line)
        assert (center.id if center else None) == expected, line
    reported_logins = {book.identity(u)[0] for u in book.data.people.scope_users("enterprise")}
    assert {line.login for line in book.lines(day, day, TODAY)} - reported_logins <= set(book.quiet_logins)


def test_meters_switch_from_premium_requests_to_ai_credits_in_june_2026() -> None:
    assert meter_of(AI_CREDITS_FROM - timedelta(days=1)).name == "premium_request"
    assert meter_of(AI_CREDITS_FROM).name == "ai_credit"
    assert closes_on(date(2026, 10, 31)) == date(2026, 11, 4) == closes_on(date(2026, 10, 1))
