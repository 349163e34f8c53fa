"""Every coding assistant side by side (issue 47): per source (the service's own surfaces, each
third-party agent app through the service, Claude Code's and Cursor's own figures), its active people
and what it counts, per day and 28-day period (sql/metrics/vendors.sql: the aggregate tier's
vendor_daily and vendor_periods). A person's use of an agent app and of its vendor directly on one
day is counted once, in the vendor's; people no login is known for are counted under scope
`vendor`. Each source counts its own things: its figures never add up across sources. Cost is each
vendor's own (bi.assistant_cost_daily's people's): the service's bill is the scope's and the tier
never shows a whole bill (pipelines/metrics/cost.py has its cost centers and teams)."""

from typing import Any

from pipelines.metrics._model import Metric
from pipelines.metrics._rules import DAY_FINALITY, PERIOD_FINALITY, PERIOD_GAPS

_GAPS = (
    "A day on which the tier holds no figure of the scope from any source telling it is a gap: NULL, named in "
    "gaps, never zero; a source missing from a day others have figures for had none that day."
)
# A person uses several sources, and each counts other things: always one row a source.
_SPLIT: dict[str, Any] = {"dimensions": ("scope", "source"), "split_by": ("source",)}


def _day(rows: str, **declared: Any) -> Metric:
    return Metric(grain="day", source=f"{rows}_daily", gap_rule=_GAPS, finality_rule=DAY_FINALITY, **_SPLIT, **declared)


def _period(rows: str, **declared: Any) -> Metric:
    return Metric(
        grain="period",
        source=f"{rows}_periods",
        gap_rule=PERIOD_GAPS,
        finality_rule=PERIOD_FINALITY,
        **_SPLIT,
        **declared,
    )


METRICS = (
    _day(
        "metrics_vendor",
        name="assistant_people",
        definition="People active with each coding assistant source on the day: the service on any of its "
        "surfaces, an agent app by a job start, Claude Code by a session, Cursor as it says.",
        unit="people",
        measure="sum(active_people)",
        compared_by="assistant_people",
    ),
    _period(
        "metrics_vendor",
        name="assistant_people_28d",
        definition="People active with each coding assistant source on a day of the 28-day period, each counted once.",
        unit="people",
        measure="sum(active_people)",
        compared_by="assistant_people",
    ),
    _day(
        "metrics_vendor_requests",
        name="assistant_requests",
        definition="Requests people made of each source on the day: the service's user-initiated interactions, "
        "Cursor's composer, chat, agent and Cmd-K requests (Claude Code and agent apps tell none).",
        unit="requests",
        measure="sum(requests)",
        compared_by="assistant_requests",
    ),
    _period(
        "metrics_vendor_requests",
        name="assistant_requests_28d",
        definition="Requests people made of each source over the 28-day period (as assistant_requests).",
        unit="requests",
        measure="sum(requests)",
        compared_by="assistant_requests",
    ),
    _day(
        "metrics_vendor_sessions",
        name="assistant_sessions",
        definition="Claude Code's own sessions on the day (the service tells no sessions per person).",
        unit="sessions",
        measure="sum(sessions)",
        compared_by="assistant_sessions",
    ),
    _period(
        "metrics_vendor_sessions",
        name="assistant_sessions_28d",
        definition="Claude Code's own sessions over the 28-day period.",
        unit="sessions",
        measure="sum(sessions)",
        compared_by="assistant_sessions",
    ),
    _day(
        "metrics_vendor_lines",
        name="assistant_lines_added",
        definition="Lines of code each source added on the day: the service's loc_added_sum, Claude Code's "
        "lines added, Cursor's total lines added.",
        unit="lines",
        measure="sum(lines_added)",
        compared_by="assistant_lines_added",
    ),
    _period(
        "metrics_vendor_lines",
        name="assistant_lines_added_28d",
        definition="Lines of code each source added over the 28-day period (as assistant_lines_added).",
        unit="lines",
        measure="sum(lines_added)",
        compared_by="assistant_lines_added",
    ),
    _day(
        "metrics_vendor_accepted",
        name="assistant_lines_accepted",
        definition="Lines Cursor's suggestions added that people accepted on the day (no other source tells it).",
        unit="lines",
        measure="sum(lines_accepted)",
        compared_by="assistant_lines_accepted",
    ),
    _period(
        "metrics_vendor_accepted",
        name="assistant_lines_accepted_28d",
        definition="Lines Cursor's suggestions added that people accepted over the 28-day period.",
        unit="lines",
        measure="sum(lines_accepted)",
        compared_by="assistant_lines_accepted",
    ),
    _day(
        "metrics_vendor_cost",
        name="assistant_cost",
        definition="What each vendor bills for its people's use, placed on the day: Claude Code's estimated "
        "cost of API customers' tokens, Cursor's on-demand spend (beyond the plan) grown since its previous "
        "read, on the read's day. A source with no cost placed on a shown day is no row of it (a day without "
        "a Cursor read has none). "
        "Not the service's bill (pipelines/metrics/cost.py).",
        unit="US dollars (billed)",
        measure="sum(cost_usd)",
        # Cursor's spend lands on its read days: no daily series the change rule can weigh.
    ),
    _period(
        "metrics_vendor_cost",
        name="assistant_cost_28d",
        definition="What each vendor billed for its people's use placed on the days of the 28-day period "
        "(as assistant_cost).",
        unit="US dollars (billed)",
        measure="sum(cost_usd)",
    ),
    _day(
        "metrics_vendor_subscription_estimate",
        name="assistant_subscription_estimate",
        definition="Anthropic's estimated cost of the tokens Claude Code's subscription seats used on the day: "
        "what the use would have cost as an API customer; the seats' price pays it, billed nowhere.",
        unit="US dollars (estimated, not billed)",
        measure="sum(subscription_estimate_usd)",
    ),
    _period(
        "metrics_vendor_subscription_estimate",
        name="assistant_subscription_estimate_28d",
        definition="Anthropic's estimated cost of the tokens Claude Code's subscription seats used over the "
        "28-day period (as assistant_subscription_estimate).",
        unit="US dollars (estimated, not billed)",
        measure="sum(subscription_estimate_usd)",
    ),
)
