"""The one change rule (sql/views/_change_rule.sql) as properties of daily series."""

from __future__ import annotations

import duckdb
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipelines.warehouse.sql import run_sql

DAYS = 28


@pytest.fixture(scope="module")
def conn() -> duckdb.DuckDBPyConnection:
    conn = duckdb.connect()
    conn.execute("CREATE SCHEMA bi")
    run_sql(conn, "views/_change_rule.sql")
    return conn


def _call(
    conn: duckdb.DuckDBPyConnection, now: list[int], before: list[int]
) -> tuple[str | None, float | None, float | None]:
    args = [sum(now), sum(x * x for x in now), len(now), sum(before), sum(x * x for x in before), len(before)]
    row = conn.execute(
        "SELECT bi.change_call($1, $2, $3, $4, $5, $6), bi.change_low($1, $2, $3, $4, $5, $6),"
        " bi.change_high($1, $2, $3, $4, $5, $6)",
        args,
    ).fetchone()
    assert row is not None
    return row[0], row[1], row[2]


_rate = st.integers(min_value=1, max_value=2_000)
_noise = st.lists(st.floats(min_value=-0.5, max_value=0.5), min_size=DAYS, max_size=DAYS)


@settings(max_examples=200, deadline=None)
@given(rate=_rate, noise=_noise, order=st.randoms(use_true_random=False), nudge=st.integers(-1, 1))
def test_a_flat_series_with_noise_is_never_called_a_change(conn, rate, noise, order, nudge) -> None:
    """The same days in another order, one day a count off: steady, the interval spans none."""
    before = [max(0, round(rate * (1 + n))) for n in noise]
    now = list(before)
    order.shuffle(now)
    now[0] = max(0, now[0] + nudge)
    call, low, high = _call(conn, now, before)
    if sum(before) and sum(now):
        assert call == "steady"
        assert low is not None and high is not None and low <= 0 <= high


@settings(max_examples=200, deadline=None)
@given(rate=st.integers(min_value=5, max_value=2_000), noise=_noise, later=_noise)
def test_a_doubled_rate_over_28_days_is_always_called_grown(conn, rate, noise, later) -> None:
    """Days within half their rate either way, then twice the rate: grown, and halved: shrunk."""
    before = [round(rate * (1 + n)) for n in noise]
    now = [round(2 * rate * (1 + n)) for n in later]
    assert _call(conn, now, before)[0] == "grown"
    assert _call(conn, before, now)[0] == "shrunk"


def test_too_few_days_in_either_period_call_nothing(conn) -> None:
    (minimum,) = conn.execute("SELECT bi.min_compared_days()").fetchone()
    assert _call(conn, [10] * (minimum - 1), [40] * DAYS) == (None, None, None)
    assert _call(conn, [10] * DAYS, [40] * (minimum - 1)) == (None, None, None)
    assert _call(conn, [10] * minimum, [40] * minimum)[0] == "shrunk"


def test_new_and_gone_are_from_and_to_nothing(conn) -> None:
    assert _call(conn, [1] + [0] * (DAYS - 1), [0] * DAYS)[0] == "new"
    assert _call(conn, [0] * DAYS, [1] + [0] * (DAYS - 1))[0] == "gone"
    assert _call(conn, [0] * DAYS, [0] * DAYS)[0] == "steady"
