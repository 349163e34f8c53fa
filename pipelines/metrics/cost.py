"""What the assistant cost, per 28-day period (sql/metrics/cost.sql: the aggregate tier's
cost_center_periods and team_periods_cost): a cost center's net and a team's net charged back.
Never the whole bill, what is unallocated, or anyone's own: the tier holds none of them."""

from typing import Any

from pipelines.metrics._model import Metric
from pipelines.metrics._rules import PERIOD_FINALITY, PERIOD_GAPS


def _period(**declared: Any) -> Metric:
    return Metric(grain="period", gap_rule=PERIOD_GAPS, finality_rule=PERIOD_FINALITY, **declared)


METRICS = (
    _period(
        name="cost_center_cost_28d",
        definition="Net billed cost of each enterprise cost center over the 28-day period (the bill's net "
        "amounts, after discounts), in the bill's currency.",
        unit="currency (net)",
        source="metrics_cost_center_periods",
        measure="sum(net_amount)",
        dimensions=("scope", "cost_center"),
    ),
    _period(
        name="team_charge_28d",
        definition="Net cost charged back to each team over the 28-day period: its cost center's net, or its "
        "members' share of the scope's AI credits.",
        unit="currency (net)",
        source="metrics_team_charge_periods",
        measure="sum(net_amount)",
        dimensions=("scope", "team"),
        # A member's part is the same on each of their teams: teams do not add up.
        split_by=("team",),
    ),
)
