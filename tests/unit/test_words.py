"""Counts in words: one is singular, every other number plural; a rate's change is two rates and the call."""

import duckdb
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipelines._words import counted, rate_change
from pipelines.warehouse.sql import run_sql


@pytest.mark.parametrize(
    ("number", "noun", "plural", "says"),
    [
        (1, "day", None, "1 day"),
        (0, "day", None, "0 days"),
        (2, "day", None, "2 days"),
        (1024, "row", None, "1,024 rows"),
        (1, "delivery", "deliveries", "1 delivery"),
        (3, "delivery", "deliveries", "3 deliveries"),
    ],
)
def test_a_count_is_singular_for_exactly_one(number: int, noun: str, plural: str | None, says: str) -> None:
    assert counted(number, noun, plural) == says


def _change_rule() -> duckdb.DuckDBPyConnection:
    conn = duckdb.connect()
    conn.execute("CREATE SCHEMA bi")
    run_sql(conn, "views/_change_rule.sql")
    return conn


_SERIES = st.lists(st.integers(min_value=0, max_value=200), min_size=14, max_size=28)


@settings(max_examples=200, deadline=None)
@given(now=_SERIES, before=_SERIES)
def test_a_rate_change_is_called_only_where_its_interval_excludes_no_change_and_never_reads_as_daily_compounding(
    now: list[int], before: list[int]
) -> None:
    """The words of any two periods the change rule compares: grown or shrunk exactly where the
    95% interval lies wholly above or below zero, and the share is of the rate, not a %/day."""
    args = [sum(now), sum(v * v for v in now), len(now), sum(before), sum(v * v for v in before), len(before)]
    with _change_rule() as conn:
        call, low, high = conn.execute(
            "SELECT bi.change_call($1, $2, $3, $4, $5, $6), bi.change_low($1, $2, $3, $4, $5, $6), "
            "bi.change_high($1, $2, $3, $4, $5, $6)",
            args,
        ).fetchone()
    said = rate_change(call, sum(now) / len(now), sum(before) / len(before), low=low, high=high)
    if low is not None and high is not None and sum(now) and sum(before):
        assert (" grown " in said) == (low > 0) and (" shrunk " in said) == (high < 0), said
        assert ("steady" in said) == (low <= 0 <= high), said
        assert "95% interval" in said
    assert "/day" not in said and "per day" not in said and said.count("%") <= 4


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (("grown", 31.0, 22.1, -0.1, 0.2), "31.0 a day against 22.1 before: grown 40% (95% interval -10% to +20%)"),
        (("shrunk", 10.0, 20.0, -0.7, -0.3), "10.0 a day against 20.0 before: shrunk 50% (95% interval -70% to -30%)"),
        (
            ("steady", 25.6, 24.9, -0.27, 0.32),
            "25.6 a day against 24.9 before: steady (+3%, within the day-to-day noise: 95% interval -27% to +32%)",
        ),
        (("new", 4.0, 0.0, None, None), "new: 4.0 a day, none before"),
        (("gone", 0.0, 3.0, None, None), "0.0 a day against 3.0 before: gone"),
        ((None, 4.0, None, None, None), "no comparison"),
    ],
)
def test_a_rate_change_reads_as_two_rates_and_the_call(args: tuple, says: str) -> None:
    call, current, previous, low, high = args
    assert rate_change(call, current, previous, low=low, high=high) == says
