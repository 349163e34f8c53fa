from datetime import date, timedelta

from hypothesis import given
from hypothesis import strategies as st

from pipelines.page._axis import WEEKLY_AFTER_DAYS, time_axis

MONDAY = date(2026, 3, 2)


def _days(n: int, first: date = MONDAY) -> list[date]:
    return [first + timedelta(days=i) for i in range(n)]


def test_up_to_60_days_the_axis_is_daily_and_keeps_its_marks() -> None:
    days = _days(WEEKLY_AFTER_DAYS)
    axis = time_axis(days, gaps=[days[3]], provisional=days[-3:])
    assert not axis.weekly and axis.points == days
    assert axis.gaps == {days[3]} and axis.provisional == set(days[-3:])
    assert axis.mean({days[0]: 5}) == {d: (5 if d == days[0] else None) for d in days}


def test_beyond_60_days_each_point_is_a_monday_and_a_gap_never_drags_the_mean_down() -> None:
    days = _days(91)
    values: dict[date, float | None] = {d: 10 for d in days}
    values[days[1]] = None  # no agent data: a gap, not a zero
    values[days[2]] = 4
    axis = time_axis(days, gaps=[days[1], *days[7:14]], provisional=[days[-1]])
    assert axis.weekly and len(axis.points) == 13 and all(p.weekday() == 0 for p in axis.points)
    weekly = axis.mean(values)
    assert weekly[MONDAY] == (10 * 5 + 4) / 6  # six days with data, the gap left out
    # A week is a gap only when every one of its days is; it is provisional when any day is.
    assert axis.gaps == {MONDAY + timedelta(days=7)}
    assert axis.provisional == {days[-1] - timedelta(days=days[-1].weekday())}
    assert axis.label("Users") == "Users (weekly mean per day with data)"


@given(n=st.integers(61, 400), first=st.dates(min_value=date(2024, 1, 1), max_value=date(2030, 1, 1)))
def test_every_day_of_a_long_window_belongs_to_exactly_one_week(n: int, first: date) -> None:
    days = _days(n, first)
    axis = time_axis(days)
    members = [d for point in axis.points for d in axis.members[point]]
    assert members == days
    assert all(d - timedelta(days=d.weekday()) == point for point in axis.points for d in axis.members[point])
