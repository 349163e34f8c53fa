"""Counts in the words a person reads: "1 day", "2 days", "1,024 rows"."""

from __future__ import annotations


def counted(number: int, noun: str, plural: str | None = None) -> str:
    """`number` and its noun, singular for exactly one; `plural` when adding an s is wrong."""
    return f"{number:,} {noun if number == 1 else plural or noun + 's'}"


def rate_change(
    call: str | None,
    current: float | None,
    previous: float | None,
    *,
    unit: str = "a day",
    before: str = "before",
    low: float | None = None,
    high: float | None = None,
) -> str:
    """A per-day rate against the previous period's, plainly: "31.0 a day against 22.1 before:
    grown 40% (95% interval +12% to +68%)", never a "%/day" that reads as compounding daily.

    `call` is the change rule's (sql/views/_change_rule.sql), which says grown or shrunk only
    where the 95% interval (`low`, `high`: shares of the previous rate) excludes no change."""
    if call is None or current is None or previous is None:
        return "no comparison"
    if call == "new":
        return f"new: {current:,.1f} {unit}, none {before}"
    rates = f"{current:,.1f} {unit} against {previous:,.1f} {before}"
    if call == "gone" or not previous:
        return f"{rates}: {call}"
    share = current / previous - 1
    interval = f"95% interval {low:+.0%} to {high:+.0%}" if low is not None and high is not None else ""
    if call == "steady":
        return f"{rates}: steady ({share:+.0%}, within the day-to-day noise{': ' + interval if interval else ''})"
    return f"{rates}: {call} {abs(share):.0%}" + (f" ({interval})" if interval else "")
