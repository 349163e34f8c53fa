"""Which months a billing run fetches: the history the service keeps on a first run, then only
the months not landed closed, whatever the history; and the meter of each month."""

from __future__ import annotations

from datetime import date, timedelta

from hypothesis import given
from hypothesis import strategies as st

from pipelines.ingest.billing import meter_of, months_since, months_to_fetch
from pipelines.service.billing_wire import HISTORY_MONTHS, month_closes


def _months_back(first: date, today: date) -> int:
    return (today.year - first.year) * 12 + today.month - first.month


def test_a_first_run_fetches_the_24_months_the_service_keeps_oldest_first() -> None:
    months = months_to_fetch(today=date(2026, 11, 20), months=24, closed=())
    assert months[0] == date(2024, 12, 1) and months[-1] == date(2026, 11, 1)
    assert len(months) == 24 and months == sorted(months)


def test_asking_for_more_months_than_the_service_keeps_fetches_what_it_keeps() -> None:
    assert months_to_fetch(today=date(2026, 11, 20), months=60, closed=()) == months_to_fetch(
        today=date(2026, 11, 20), months=24, closed=()
    )


def test_a_daily_run_after_the_backfill_fetches_only_the_open_months() -> None:
    today = date(2026, 11, 2)  # October closes on November 4th
    history = months_to_fetch(today=today, months=24, closed=())
    closed = [m for m in history if today >= month_closes(m)]
    assert months_to_fetch(today=today, months=24, closed=closed) == [date(2026, 10, 1), date(2026, 11, 1)]
    later = date(2026, 11, 4)
    closed = [m for m in history if later >= month_closes(m)]
    assert months_to_fetch(today=later, months=24, closed=closed) == [date(2026, 11, 1)]


@given(
    today=st.dates(min_value=date(2025, 1, 1), max_value=date(2030, 12, 31)),
    months=st.integers(min_value=1, max_value=40),
    closed_back=st.sets(st.integers(min_value=0, max_value=30)),
)
def test_a_run_fetches_each_month_of_its_window_not_landed_closed_once(
    today: date, months: int, closed_back: set[int]
) -> None:
    first = today.replace(day=1)
    closed = set()
    for back in closed_back:
        month = first
        for _ in range(back):
            month = (month - timedelta(days=1)).replace(day=1)
        closed.add(month)
    fetched = months_to_fetch(today=today, months=months, closed=closed)
    window = min(months, HISTORY_MONTHS)
    assert fetched == sorted(set(fetched)) and not set(fetched) & closed
    assert all(m.day == 1 and 0 <= _months_back(m, today) < window for m in fetched)
    assert len(fetched) == window - sum(1 for m in closed if _months_back(m, today) < window)


def test_premium_requests_meter_the_months_before_june_2026_and_ai_credits_from_then() -> None:
    assert meter_of(date(2026, 5, 1)) == "premium_request"
    assert meter_of(date(2026, 6, 1)) == "ai_credit"
    assert meter_of(date(2024, 12, 1)) == "premium_request"


@given(
    since=st.dates(min_value=date(2023, 1, 1), max_value=date(2027, 12, 31)),
    today=st.dates(min_value=date(2025, 1, 1), max_value=date(2027, 12, 31)),
    months=st.integers(min_value=0, max_value=24),
)
def test_a_run_s_window_holds_the_months_from_its_first_day_s_to_today_s_and_no_more(
    since: date, today: date, months: int
) -> None:
    reach = months_since(since, today, months)
    window = months_to_fetch(today=today, months=reach, closed=()) if reach else []
    if months == 0:  # BILLING_MONTHS=0: billing off, whatever the run's days
        assert reach == 0
    elif since.replace(day=1) > today.replace(day=1):  # days the service has not reached: its month only
        assert window == [today.replace(day=1)]
    else:
        assert window[-1] == today.replace(day=1)
        assert window[0] == max(since.replace(day=1), months_to_fetch(today=today, months=months, closed=())[0])


def test_a_run_of_one_day_fetches_its_month_and_the_schedule_the_backfill() -> None:
    today = date(2026, 11, 20)
    assert months_to_fetch(today=today, months=months_since(date(2026, 11, 19), today, 24), closed=()) == [
        date(2026, 11, 1)
    ]
    assert months_to_fetch(today=today, months=months_since(date(2026, 10, 30), today, 24), closed=()) == [
        date(2026, 10, 1),
        date(2026, 11, 1),
    ]
    assert months_since(None, today, 24) == 24
