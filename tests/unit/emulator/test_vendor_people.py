"""The vendors' people: the service's people under the emails their seats show, a few outsiders,
the same from one seed to the next, and a day's share that only grows until final."""

from __future__ import annotations

from datetime import date, timedelta

from hypothesis import given, settings
from hypothesis import strategies as st

from emulator.population import LAPSED_AT, LAPSED_EVERY, NEVER_ACTIVE_AT, NEVER_ACTIVE_EVERY
from emulator.reportdata import ReportData
from emulator.seat import holder
from emulator.vendor_people import FINAL_AFTER_DAYS, VendorPeople, day_ms, day_of_ms, is_final, share

TODAY = date(2026, 11, 20)
FIRST_DAY = TODAY - timedelta(days=60)


def _people(seed: int = 7, users: int = 40) -> VendorPeople:
    return VendorPeople(ReportData(seed=seed, users=users, org="acme", enterprise="acme-corp", first_day=FIRST_DAY))


def test_one_seed_serves_the_same_people_and_days_another_seed_others() -> None:
    one, again, other = _people(7), _people(7), _people(8)
    days = [FIRST_DAY + timedelta(days=n) for n in range(60)]
    for vendor in ("claude", "cursor"):
        assert one.roster(vendor) == again.roster(vendor)
        assert [one.active(vendor, p.index, d) for p in one.roster(vendor) for d in days] == [
            again.active(vendor, p.index, d) for p in again.roster(vendor) for d in days
        ]
    assert one.roster("claude") != other.roster("claude")


def test_vendor_users_are_mostly_the_services_people_under_their_seat_email_and_a_few_outsiders() -> None:
    people = _people(users=300)
    for vendor in ("claude", "cursor"):
        roster = people.roster(vendor)
        insiders = [p for p in roster if not p.outsider]
        outsiders = [p for p in roster if p.outsider]
        assert all(p.email == holder(p.index)[1] and p.name == holder(p.index)[0] for p in insiders)
        assert 1 <= len(outsiders) <= len(roster) // 10
        assert all(p.email.endswith("@contractors.example") for p in outsiders)
        # Users of the organization and of {org}-labs alike; a fifth to two fifths of everyone.
        assert {p.index < people.users for p in insiders} == {True, False}
        assert people.total // 5 <= len(insiders) <= people.total * 2 // 5
        assert len({p.email for p in roster}) == len(roster)


def test_seat_holders_who_left_the_services_assistant_use_cursor_the_lapsed_from_the_day_they_lapsed() -> None:
    people = _people(users=80)
    never = [u for u in range(people.users) if u % NEVER_ACTIVE_EVERY == NEVER_ACTIVE_AT]
    lapsed = [u for u in range(people.users) if u % LAPSED_EVERY == LAPSED_AT]
    cursor = {p.index for p in people.roster("cursor")}
    assert set(never) | set(lapsed) <= cursor
    days = [FIRST_DAY + timedelta(days=n) for n in range(60)]
    for u in lapsed:
        used = [d for d in days if people.active("cursor", u, d)]
        assert used and min(used) >= people.lapse_day


def test_nobody_uses_a_vendor_before_the_history_begins_and_weekends_are_quieter() -> None:
    people = _people(users=300)
    roster = people.roster("claude")
    assert not any(people.active("claude", p.index, FIRST_DAY - timedelta(days=1)) for p in roster)
    days = [FIRST_DAY + timedelta(days=n) for n in range(56)]
    weekday = sum(people.active("claude", p.index, d) for p in roster for d in days if d.weekday() < 5) / 40
    weekend = sum(people.active("claude", p.index, d) for p in roster for d in days if d.weekday() >= 5) / 16
    assert weekend < weekday / 2


@settings(max_examples=60, deadline=None)
@given(age=st.integers(min_value=-3, max_value=10))
def test_a_days_share_only_grows_with_the_clock_and_is_whole_once_final(age: int) -> None:
    day = TODAY - timedelta(days=age)
    now, later = share(day, TODAY), share(day, TODAY + timedelta(days=1))
    assert 0 <= now <= later <= 1
    assert (now == 1) == is_final(day, TODAY) == (age >= FINAL_AFTER_DAYS)
    assert (now == 0) == (age < 0)


@given(days=st.integers(min_value=0, max_value=40_000))
def test_a_day_and_its_epoch_milliseconds_go_both_ways(days: int) -> None:
    day = date(1970, 1, 1) + timedelta(days=days)
    assert day_of_ms(day_ms(day)) == day
    assert day_of_ms(day_ms(day) + 86_399_999) == day
