"""Per-person activity, by pseudonym, in the pseudonymous tier only (sql/metrics/people.sql):
served only when the setting asks for that tier (METRICS_CATALOG_TIER=pseudonymous), never by
login or id. `forget` rebuilds the tier without the person, so they leave these answers too."""

from typing import Any

from pipelines.metrics._model import Metric
from pipelines.metrics._rules import DAY_FINALITY, USER_GAPS


def _day(**declared: Any) -> Metric:
    return Metric(
        grain="day",
        source="metrics_user_daily",
        gap_rule=USER_GAPS,
        finality_rule=DAY_FINALITY,
        dimensions=("scope", "user"),
        split_by=("user",),
        tier="pseudonymous",
        **declared,
    )


METRICS = (
    _day(
        name="user_interactions",
        definition="Interactions each person started with the assistant on the day (their "
        "user_initiated_interaction_count), by pseudonym.",
        unit="interactions",
        measure="sum(user_initiated_interaction_count)",
        compared_by="user_interactions",
    ),
    _day(
        name="user_code_acceptances",
        definition="Generated code suggestions each person accepted on the day, by pseudonym.",
        unit="acceptances",
        measure="sum(code_acceptance_activity_count)",
        compared_by="user_code_acceptances",
    ),
)
