"""How the page says a change: the colour and words follow the rule's call, never the sign."""

import re
from html import escape

from hypothesis import example, given
from hypothesis import strategies as st

from pipelines._words import rate_change
from pipelines.page._change import Change

CALLS = st.sampled_from(["new", "grown", "shrunk", "gone", "steady", None])
RATES = st.one_of(st.none(), st.floats(min_value=0, max_value=1e6, allow_nan=False))
SHARES = st.one_of(st.none(), st.floats(min_value=-10, max_value=10, allow_nan=False))


@given(call=CALLS, current=RATES, previous=RATES, low=SHARES, high=SHARES)
def test_a_change_is_coloured_and_worded_by_its_call_alone(call, current, previous, low, high) -> None:
    change = Change(call, current, previous, low, high, "no comparison: too few days")
    css = {"new": "up", "grown": "up", "shrunk": "down", "gone": "down"}.get(call or "", "flat")
    assert change.css == css
    detail, verdict = change.detail("a day"), change.verdict()
    assert f'data-call="{call or "none"}"' in change.badge() and change.badge() in verdict
    # The change of a rate a day against the previous one: never "%/day", which reads as compounding.
    assert "/day" not in detail + verdict
    # The tile says it in the run summary's words; a table's cell colours only what the rule called.
    assert detail == (
        escape(rate_change(call, current, previous, low=low, high=high)) if call else "no comparison: too few days"
    )
    coloured = re.findall(r'<span class="(up|down|flat)">', verdict)
    assert set(coloured) <= {css}
    if call == "steady" and change.share is not None:
        assert "within the day-to-day noise" in verdict and coloured == ["flat"]


@given(current=st.floats(min_value=0.1, max_value=1e4), previous=st.floats(min_value=0.1, max_value=1e4))
@example(current=99.6, previous=100.0)
def test_a_table_shows_the_rate_a_day_against_the_previous_rate_with_a_true_minus(current, previous) -> None:
    verdict = Change("steady", current, previous, -0.5, 0.5).verdict()
    shown = re.search(r'<span class="flat">([+\u2212])(\d+)%</span>', verdict)
    assert shown, verdict
    expected = (current / previous - 1) * 100
    assert int(shown.group(2)) == abs(round(expected))  # -0.4% is "+0%", never "-0%"
    assert shown.group(1) == ("\u2212" if round(expected) < 0 else "+")
