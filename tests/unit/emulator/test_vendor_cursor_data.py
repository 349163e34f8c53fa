"""The emulated Cursor team: every member every day, counts that hang together and only grow
until final, and a cycle's spend that is the sum of its days' usage-based requests."""

from __future__ import annotations

import re
from datetime import date, timedelta

from hypothesis import given, settings
from hypothesis import strategies as st

from emulator.reportdata import ReportData
from emulator.vendor_cursor_data import COUNTS, RATES, TEAM_LIMIT_DOLLARS, CursorData
from emulator.vendor_people import VendorPeople, day_ms, day_of_ms

TODAY = date(2026, 11, 20)
FIRST_DAY = TODAY - timedelta(days=60)
_DATA = CursorData(VendorPeople(ReportData(seed=7, users=40, org="acme", enterprise="acme-corp", first_day=FIRST_DAY)))


def test_every_member_has_a_record_every_day_from_the_history_to_today() -> None:
    members = [m["email"] for m in _DATA.members()]
    records = _DATA.daily(FIRST_DAY - timedelta(days=5), TODAY + timedelta(days=5), today=TODAY)
    days = [FIRST_DAY + timedelta(days=n) for n in range(61)]
    assert [(r["date"], r["email"]) for r in records] == [(day_ms(d), e) for d in days for e in members]
    assert [m["role"] for m in _DATA.members()].count("owner") == 1
    ids = [m["id"] for m in _DATA.members()]
    assert len(set(ids)) == len(ids) and all(re.fullmatch(r"user_[0-9A-Za-z]{28}", i) for i in ids)
    numbers = {r["email"]: r["userId"] for r in records}
    assert len(set(numbers.values())) == len(members)


def test_an_inactive_day_is_zeros_and_an_active_day_hangs_together() -> None:
    records = _DATA.daily(FIRST_DAY, TODAY - timedelta(days=2), today=TODAY)
    idle = [r for r in records if not r["isActive"]]
    busy = [r for r in records if r["isActive"]]
    assert idle and busy
    optional = ("mostUsedModel", "applyMostUsedExtension", "tabMostUsedExtension", "clientVersion")
    assert all(not any(r[c] for c in COUNTS) and all(r[f] is None for f in optional) for r in idle)
    assert all(r["day"] == day_of_ms(r["date"]).isoformat() for r in records)
    for r in busy:
        assert r["totalTabsAccepted"] <= r["totalTabsShown"]
        assert r["acceptedLinesAdded"] <= r["totalLinesAdded"]
        assert r["totalAccepts"] + r["totalRejects"] == r["totalApplies"]
        requests = r["composerRequests"] + r["chatRequests"] + r["agentRequests"]
        assert r["subscriptionIncludedReqs"] + r["usageBasedReqs"] + r["apiKeyReqs"] == requests
        assert r["mostUsedModel"] and r["clientVersion"]


@settings(max_examples=20, deadline=None)
@given(age=st.integers(min_value=0, max_value=4))
def test_a_days_counts_only_grow_as_the_clock_moves_and_never_change_once_final(age: int) -> None:
    day = TODAY - timedelta(days=age)
    now = _DATA.daily(day, day, today=TODAY)
    later = _DATA.daily(day, day, today=TODAY + timedelta(days=1))
    for a, b in zip(now, later, strict=True):
        assert all(a[c] <= b[c] for c in COUNTS)
    if age >= 2:
        assert now == later


def test_a_cycles_spend_is_the_sum_of_its_days_requests_at_the_members_rate() -> None:
    start, members = _DATA.spend(today=TODAY)
    assert start == day_ms(TODAY.replace(day=1))
    records = _DATA.daily(TODAY.replace(day=1), TODAY, today=TODAY)
    roster = {p.email: p for p in _DATA.people.roster("cursor")}
    for member in members:
        mine = [r for r in records if r["email"] == member["email"]]
        rate = _DATA.rate(roster[member["email"]])
        usage = sum(r["usageBasedReqs"] for r in mine)
        included = sum(r["subscriptionIncludedReqs"] for r in mine)
        assert rate in RATES and member["fastPremiumRequests"] == usage
        assert abs(member["spendCents"] - usage * rate) < 1e-6
        assert abs(member["overallSpendCents"] - (usage + included) * rate) < 1e-6
        assert member["userId"] == _DATA.encoded_id(roster[member["email"]])
        own = member["hardLimitOverrideDollars"] or member["monthlyLimitDollars"]
        assert member["effectivePerUserLimitDollars"] == (own or TEAM_LIMIT_DOLLARS)
    assert sum(m["spendCents"] for m in members) > 0
    assert {m["monthlyLimitDollars"] for m in members} == {None, 200}
