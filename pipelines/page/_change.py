"""How the page says a change between two periods, in every tile and table alike.

The call (new, grown, shrunk, gone, steady, or none) is the SQL change rule's
(sql/views/_change_rule.sql). The badge, its colour and the words follow the call alone, never
the sign of the point estimate: a change within the day-to-day noise is "steady" and never
coloured as growth or decline. The percentage is the change of the rate a day against the
previous period's rate a day, beside both rates (in the row, or in the words of
pipelines._words.rate_change, which the run summary uses too), so it never reads as compounding.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from html import escape

from pipelines._words import rate_change

# call → (badge text, badge class, colour class of a figure that states it)
_CALLS = {
    "new": ("new", "badge-new", "up"),
    "grown": ("▲ grown", "badge-up", "up"),
    "shrunk": ("▼ shrunk", "badge-down", "down"),
    "gone": ("gone", "badge-gone", "down"),
    "steady": ("= steady", "badge-flat", "flat"),
}
_NONE = ("no comparison", "badge-none", "flat")


@dataclass(frozen=True)
class Change:
    """One measure's per-day rate in a period against the previous period's, and the rule's call."""

    call: str | None  # None: not comparable (too few compared days, or no previous period)
    current: float | None  # per day
    previous: float | None
    low: float | None  # the change's 95% interval, as a share of the previous rate
    high: float | None
    why_not: str = ""  # when call is None: why no comparison is made

    @property
    def share(self) -> float | None:
        if self.current is None or not self.previous:
            return None
        share = self.current / self.previous - 1
        return share if math.isfinite(share) else None

    @property
    def css(self) -> str:
        """The colour class of a figure stating this change: from the call, never from the sign."""
        return _CALLS.get(self.call or "", _NONE)[2]

    def interval(self) -> str:
        if self.low is None or self.high is None:
            return ""
        return f"95% interval {_pct(self.low)} to {_pct(self.high)}"

    def badge(self) -> str:
        label, css, _ = _CALLS.get(self.call or "", _NONE)
        title = self.interval() if self.call else self.why_not
        call = escape(self.call or "none")
        return f'<span class="badge {css}" data-call="{call}" title="{escape(title)}">{label}</span>'

    def detail(self, unit: str) -> str:
        """Both rates and the change, in the words the run summary uses (pipelines._words):
        "87.3 a day against 85.1 before: steady (+3%, within the day-to-day noise: ...)"."""
        if self.call is None:
            return escape(self.why_not)
        return escape(rate_change(self.call, self.current, self.previous, unit=unit, low=self.low, high=self.high))

    def verdict(self) -> str:
        """A table's change cell, its row showing both rates already: the badge, the change of
        the rate a day and its interval."""
        share = self.share
        if self.call is None or share is None:
            words = "" if self.call else escape(self.why_not)
        else:
            words = f'<span class="{self.css}">{_pct(share)}</span>'
            if self.interval():
                words += f" ({self.interval()})"
            if self.call == "steady":
                words += ", within the day-to-day noise"
        return f'{self.badge()} <span class="change-detail">{words}</span>'


def _pct(share: float) -> str:
    # A true minus sign (U+2212): a figure never reads as a dash.
    # Rounded first: a change of -0.4% reads "+0%", never "-0%".
    return f"{round(share * 100):+d}%".replace("-", "\u2212")
