"""Teams: the members of each team active with the assistant, per day and 28-day period
(sql/metrics/teams.sql: the aggregate tier's team_daily and team_periods). The service gives no
team figure: these are from user lines, through each day's membership."""

from pipelines.metrics._model import Metric
from pipelines.metrics._rules import DAY_FINALITY, PERIOD_FINALITY, PERIOD_GAPS, TEAM_GAPS

METRICS = (
    Metric(
        name="team_active_users",
        definition="Members of each team active with the assistant on the day, on any surface, through that "
        "day's membership (a person on two teams counts in both).",
        unit="users",
        grain="day",
        source="metrics_team_daily",
        measure="sum(active_users)",
        gap_rule=TEAM_GAPS,
        finality_rule=DAY_FINALITY,
        dimensions=("scope", "team"),
        split_by=("team",),
        compared_by="team_active_users",
    ),
    Metric(
        name="team_active_users_28d",
        definition="Members of each team active with the assistant on a day of the 28-day period, each counted "
        "once, through each day's membership.",
        unit="users",
        grain="period",
        source="metrics_team_periods",
        measure="sum(active_users)",
        gap_rule=PERIOD_GAPS,
        finality_rule=PERIOD_FINALITY,
        dimensions=("scope", "team"),
        split_by=("team",),
        compared_by="team_active_users",
    ),
)
