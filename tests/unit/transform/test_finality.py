from datetime import UTC, date, datetime, timedelta, timezone

import polars as pl
from hypothesis import given
from hypothesis import strategies as st

from pipelines.transform.finality import finality_columns, is_final

NOV_20 = date(2026, 11, 20)


def test_a_day_is_final_only_after_three_full_utc_days_have_passed() -> None:
    # Nov 20 ends at Nov 21 00:00; Nov 21, 22 and 23 are the three full days after it.
    assert not is_final(NOV_20, datetime(2026, 11, 23, 23, 59, 59, tzinfo=UTC))
    assert is_final(NOV_20, datetime(2026, 11, 24, 0, 0, tzinfo=UTC))


def test_finality_is_judged_in_utc_whatever_the_fetch_time_zone() -> None:
    # 20:00 on Nov 23 in New York is already Nov 24 in UTC.
    new_york = timezone(timedelta(hours=-4))
    assert is_final(NOV_20, datetime(2026, 11, 23, 20, 0, tzinfo=new_york))


def test_the_service_clock_decides_when_it_answered_with_one() -> None:
    ours = datetime(2026, 11, 30, tzinfo=UTC)  # our clock: the day long final
    theirs = datetime(2026, 11, 22, tzinfo=UTC)  # the service's: still filling in
    frame = pl.DataFrame({"day": [NOV_20]}).with_columns(finality_columns(fetched_at=ours, served_at=theirs))
    assert frame.row(0) == (NOV_20, ours, False)
    judged_on_ours = pl.DataFrame({"day": [NOV_20]}).with_columns(finality_columns(fetched_at=ours, served_at=None))
    assert judged_on_ours["is_final"].to_list() == [True]


@given(
    day=st.dates(min_value=date(2020, 1, 1), max_value=date(2030, 12, 31)),
    fetched=st.datetimes(min_value=datetime(2020, 1, 1), max_value=datetime(2031, 1, 1), timezones=st.just(UTC)),
)
def test_the_column_agrees_with_the_rule_for_every_day_and_fetch_time(day: date, fetched: datetime) -> None:
    frame = pl.DataFrame({"day": [day]}).with_columns(finality_columns(fetched_at=fetched, served_at=None))
    assert frame["is_final"].item() == is_final(day, fetched)
