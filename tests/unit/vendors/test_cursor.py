"""Cursor's Admin API: members; daily usage over a range cut into the documented window; spend
page by page."""

import json
from datetime import date, timedelta

import httpx
from hypothesis import given
from hypothesis import strategies as st

from pipelines.vendors.cursor import daily_usage, epoch_ms, members, spend, windows
from tests.unit.vendors._answers import CURSOR_DAY, CURSOR_MEMBERS, CURSOR_SPEND, answer, client


@given(st.dates(), st.integers(0, 400), st.integers(1, 120))
def test_windows_cover_the_range_once_in_order_each_within_the_limit(start: date, span: int, limit: int) -> None:
    end = start + timedelta(days=span) if start <= date.max - timedelta(days=span) else start
    cut = windows(start, end, limit)
    days = [first + timedelta(days=n) for first, last in cut for n in range((last - first).days + 1)]
    assert days == [start + timedelta(days=n) for n in range((end - start).days + 1)]
    assert all((last - first).days < limit for first, last in cut)


def test_a_range_longer_than_30_days_is_asked_in_windows_of_epoch_milliseconds() -> None:
    bodies: list[dict[str, int]] = []

    def handler(request: httpx.Request) -> httpx.Response:
        bodies.append(json.loads(request.content))
        return answer({"data": [CURSOR_DAY], "period": bodies[-1]})

    with client("cursor", handler) as c:
        fetched = daily_usage(c, date(2024, 1, 1), date(2024, 2, 14))
    assert [(f.start, f.end) for f in fetched] == [
        (date(2024, 1, 1), date(2024, 1, 30)),
        (date(2024, 1, 31), date(2024, 2, 14)),
    ]
    assert bodies[0] == {"startDate": epoch_ms(date(2024, 1, 1)), "endDate": epoch_ms(date(2024, 1, 31)) - 1}
    assert all(b["endDate"] - b["startDate"] < 30 * 86_400_000 for b in bodies)
    assert epoch_ms(date(2024, 3, 18)) == CURSOR_DAY["date"]


def test_spend_is_read_page_by_page_up_to_total_pages() -> None:
    pages: list[int] = []

    def handler(request: httpx.Request) -> httpx.Response:
        pages.append(json.loads(request.content)["page"])
        return answer({**CURSOR_SPEND, "totalPages": 3})

    with client("cursor", handler) as c:
        fetched = spend(c)
    assert pages == [1, 2, 3]
    assert len(fetched.records) == 6
    assert fetched.envelope["subscriptionCycleStart"] == 1708992000000


def test_members_are_one_answer() -> None:
    with client("cursor", lambda r: answer(CURSOR_MEMBERS)) as c:
        fetched = members(c)
    assert [m["email"] for m in fetched.records] == ["developer@company.com", "admin@company.com"]
    assert fetched.start == fetched.end == date(2026, 11, 28)  # the vendor's day, its Date header's
