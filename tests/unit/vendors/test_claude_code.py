"""Claude Code's analytics of a day: one request a page, `starting_at` the day, the cursor of
`next_page` followed while `has_more`."""

from datetime import date

import httpx
import pytest

from pipelines.vendors import Malformed
from pipelines.vendors.claude_code import claude_code_day
from tests.unit.vendors._answers import CLAUDE_RECORD, answer, client


def test_every_page_of_the_day_is_read_by_its_cursor() -> None:
    asked: list[dict[str, str]] = []
    pages = {
        None: {"data": [CLAUDE_RECORD], "has_more": True, "next_page": "page_2"},
        "page_2": {"data": [CLAUDE_RECORD], "has_more": False, "next_page": None},
    }

    def handler(request: httpx.Request) -> httpx.Response:
        asked.append(dict(request.url.params))
        return answer(pages[request.url.params.get("page")])

    with client("claude_code", handler) as c:
        fetched = claude_code_day(c, date(2025, 8, 8))
    assert asked == [
        {"starting_at": "2025-08-08", "limit": "1000"},
        {"starting_at": "2025-08-08", "limit": "1000", "page": "page_2"},
    ]
    assert len(fetched.records) == 2 and fetched.calls == 2
    assert fetched.envelope == {"has_more": True, "next_page": "page_2"}
    assert fetched.served_at is not None


def test_a_cursor_that_comes_back_is_malformed_never_a_loop() -> None:
    page = {"data": [CLAUDE_RECORD], "has_more": True, "next_page": "page_same"}
    with client("claude_code", lambda r: answer(page)) as c, pytest.raises(Malformed, match="next_page"):
        claude_code_day(c, date(2025, 8, 8))
    assert c.calls == 2


def test_a_page_without_records_that_says_has_more_is_malformed_never_followed() -> None:
    page = {"data": [], "has_more": True, "next_page": "page_2"}
    with client("claude_code", lambda r: answer(page)) as c, pytest.raises(Malformed, match="without records"):
        claude_code_day(c, date(2025, 8, 8))
    assert c.calls == 1


def test_new_cursors_past_a_million_people_are_malformed_never_followed_further() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        return answer({"data": [CLAUDE_RECORD], "has_more": True, "next_page": f"p{c.calls}"})

    with client("claude_code", handler) as c, pytest.raises(Malformed, match="past 1,000,000 records"):
        claude_code_day(c, date(2025, 8, 8))
    assert c.calls == 1000  # a million records at the 1,000 a page asks


def test_an_answer_without_its_data_list_is_malformed() -> None:
    with client("claude_code", lambda r: answer({"records": []})) as c, pytest.raises(Malformed, match="'data'"):
        claude_code_day(c, date(2025, 8, 8))
