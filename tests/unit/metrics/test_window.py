"""The days or periods a question asks for: any day range, period or nothing resolves to the range
asked (the latest 28 days or period by default) or is one line naming what is accepted."""

from __future__ import annotations

from datetime import date, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pipelines.metrics import MetricsError, parse_day
from pipelines.metrics._window import Bounds, check_periods, parse_scope, window
from pipelines.metrics.catalog import METRICS

BOUNDS = Bounds(first=date(2026, 1, 1), newest=date(2026, 3, 31), period_end=date(2026, 3, 31))
DAY, PERIOD = METRICS["interactions"], METRICS["agent_adoption"]
days = st.dates(min_value=date(2025, 6, 1), max_value=date(2026, 6, 1))


@given(start=st.none() | days, end=st.none() | days, period=st.none() | days)
def test_a_day_metric_takes_a_range_or_a_period_or_the_latest_28_days(start, end, period) -> None:
    try:
        first, last = window(DAY, BOUNDS, start=start, end=end, period=period)
    except MetricsError as refused:
        assert "\n" not in str(refused) and str(refused).startswith("malformed range")
        assert (period is not None and (start or end)) or (start and end and start > end)
        return
    assert first <= last
    if period is not None:
        assert (first, last) == (period - timedelta(days=27), period)
    elif start is None and end is None:
        assert (first, last) == (BOUNDS.newest - timedelta(days=27), BOUNDS.newest)
    else:
        assert (start in (None, first)) and (end in (None, last))


@given(period=days)
def test_a_period_metric_takes_only_a_period_the_tier_has(period) -> None:
    ends = BOUNDS.period_ends()
    if period in ends:
        assert window(PERIOD, BOUNDS, start=None, end=None, period=period) == (period, period)
    else:
        with pytest.raises(MetricsError, match=r"^no 28-day period of the tier ends on .*: accepted: 2026-03-31, "):
            window(PERIOD, BOUNDS, start=None, end=None, period=period)


def test_the_tier_s_periods_end_every_28_days_back_from_its_newest() -> None:
    assert BOUNDS.period_ends() == [date(2026, 3, 31), date(2026, 3, 3), date(2026, 2, 3), date(2026, 1, 6)]
    assert window(PERIOD, BOUNDS, start=None, end=None, period=None) == (date(2026, 3, 31),) * 2


@given(first=days, second=days)
def test_two_compared_periods_never_overlap(first, second) -> None:
    if abs((second - first).days) < 28:
        with pytest.raises(MetricsError, match="overlap"):
            check_periods(DAY, BOUNDS, first, second)
    else:
        check_periods(DAY, BOUNDS, first, second)


@pytest.mark.parametrize(
    ("text", "scope"),
    [
        (None, (None, None)),
        ("acme", ("organization", "acme")),
        ("enterprise:acme-corp", ("enterprise", "acme-corp")),
        ("acme-corp", ("enterprise", "acme-corp")),
    ],
)
def test_a_scope_is_its_kind_and_slug_or_a_slug(text, scope) -> None:
    assert parse_scope(text, [("enterprise", "acme-corp"), ("organization", "acme")]) == scope


def test_a_slug_of_two_scopes_asks_for_one() -> None:
    with pytest.raises(MetricsError, match=r"^scope 'acme' is both organization:acme and enterprise:acme: accepted:"):
        parse_scope("acme", [("organization", "acme"), ("enterprise", "acme")])


@given(text=st.text(max_size=12))
def test_a_day_is_yyyy_mm_dd_or_one_line_saying_so(text) -> None:
    try:
        assert parse_day(text) == date.fromisoformat(text.strip())
    except MetricsError as refused:
        assert str(refused).endswith("accepted: YYYY-MM-DD") and "\n" not in str(refused)
