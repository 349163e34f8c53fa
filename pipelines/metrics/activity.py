"""The scope's own activity, as the service counts it: active users, interactions, code
generations and acceptances, per day and 28-day period (sql/metrics/activity.sql: the aggregate
tier's scope_daily and scope_periods). Interactions are the top-level count: agent job starts
(agents.py) are a different measure and never added to it."""

from typing import Any

from pipelines.metrics._model import Metric
from pipelines.metrics._rules import DAY_FINALITY, DAY_GAPS, PERIOD_FINALITY, PERIOD_GAPS


def _day(**declared: Any) -> Metric:
    return Metric(grain="day", source="metrics_scope_daily", gap_rule=DAY_GAPS, finality_rule=DAY_FINALITY, **declared)


def _period(**declared: Any) -> Metric:
    return Metric(
        grain="period", source="metrics_scope_periods", gap_rule=PERIOD_GAPS, finality_rule=PERIOD_FINALITY, **declared
    )


_RATE = "sum(code_acceptance_activity_count) / nullif(sum(code_generation_activity_count), 0)"

METRICS = (
    _day(
        name="active_users",
        definition="Users active with the assistant on the day, as the service counts them (daily_active_users).",
        unit="users",
        measure="sum(daily_active_users)",
        compared_by="active_users",
    ),
    _period(
        name="active_users_28d",
        definition="Users active with the assistant in the 28 days ending on the period's newest reported day, "
        "as the service counts them (monthly_active_users of that day).",
        unit="users",
        measure="sum(monthly_active_users)",
        compared_by="active_users",
    ),
    _day(
        name="interactions",
        definition="Interactions users started with the assistant on the day (the top-level "
        "user_initiated_interaction_count; agent job starts are never added to it).",
        unit="interactions",
        measure="sum(user_initiated_interaction_count)",
        compared_by="interactions",
    ),
    _period(
        name="interactions_28d",
        definition="Interactions users started with the assistant over the 28-day period (the top-level count).",
        unit="interactions",
        measure="sum(user_initiated_interaction_count)",
        compared_by="interactions",
    ),
    _day(
        name="code_generations",
        definition="Code suggestions the assistant generated on the day (code_generation_activity_count).",
        unit="generations",
        measure="sum(code_generation_activity_count)",
        compared_by="code_generations",
    ),
    _day(
        name="code_acceptances",
        definition="Generated code suggestions users accepted on the day (code_acceptance_activity_count).",
        unit="acceptances",
        measure="sum(code_acceptance_activity_count)",
        compared_by="code_acceptances",
    ),
    _period(
        name="code_generations_28d",
        definition="Code suggestions the assistant generated over the 28-day period.",
        unit="generations",
        measure="sum(code_generation_activity_count)",
        compared_by="code_generations",
    ),
    _period(
        name="code_acceptances_28d",
        definition="Generated code suggestions users accepted over the 28-day period.",
        unit="acceptances",
        measure="sum(code_acceptance_activity_count)",
        compared_by="code_acceptances",
    ),
    _day(
        name="acceptance_rate",
        definition="Accepted code suggestions per suggestion generated on the day (acceptances / generations; "
        "NULL on a day without generations).",
        unit="share",
        measure=_RATE,
        known="sum(code_generation_activity_count) IS NOT NULL",
    ),
    _period(
        name="acceptance_rate_28d",
        definition="Accepted code suggestions per suggestion generated over the 28-day period.",
        unit="share",
        measure=_RATE,
    ),
)
