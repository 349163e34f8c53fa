"""Agent adoption: third-party agent apps' users, job starts and sessions, per day and 28-day
period (sql/metrics/agents.sql: the aggregate tier's agent_daily and agent_periods). Job starts
are the nested count: never a part of the top-level interactions (activity.py)."""

from typing import Any

from pipelines.metrics._model import Metric
from pipelines.metrics._rules import AGENT_GAPS, DAY_FINALITY, PERIOD_FINALITY, PERIOD_GAPS


def _day(**declared: Any) -> Metric:
    return Metric(
        grain="day", source="metrics_agent_daily", gap_rule=AGENT_GAPS, finality_rule=DAY_FINALITY, **declared
    )


def _period(**declared: Any) -> Metric:
    return Metric(
        grain="period", source="metrics_agent_periods", gap_rule=PERIOD_GAPS, finality_rule=PERIOD_FINALITY, **declared
    )


METRICS = (
    _period(
        name="agent_adoption",
        definition="Users of each third-party agent app over the 28-day period: people whose user-level "
        "record listed the app on a day of it, each counted once.",
        unit="users",
        measure="sum(agent_users)",
        dimensions=("scope", "agent"),
        split_by=("agent",),
        compared_by="agent_job_starts",
    ),
    _day(
        name="agent_users",
        definition="Users of each third-party agent app on the day (their user-level record listed it).",
        unit="users",
        measure="sum(agent_users)",
        dimensions=("scope", "agent"),
        split_by=("agent",),
        compared_by="agent_users",
    ),
    _day(
        name="agent_job_starts",
        definition="Jobs started by third-party agent apps on the day, from the scope's aggregate report "
        "(a nested count, never added to interactions).",
        unit="job starts",
        measure="sum(agent_job_starts)",
        dimensions=("scope", "agent"),
        compared_by="agent_job_starts",
    ),
    _period(
        name="agent_job_starts_28d",
        definition="Jobs started by third-party agent apps over the 28-day period, from the scope's aggregate "
        "reports (a nested count, never added to interactions).",
        unit="job starts",
        measure="sum(agent_job_starts)",
        dimensions=("scope", "agent"),
        compared_by="agent_job_starts",
    ),
    _day(
        name="agent_sessions",
        definition="Sessions of third-party agent apps on the day, from the scope's aggregate report.",
        unit="sessions",
        measure="sum(agent_sessions)",
        dimensions=("scope", "agent"),
        compared_by="agent_sessions",
    ),
    _period(
        name="agent_sessions_28d",
        definition="Sessions of third-party agent apps over the 28-day period, from the scope's aggregate reports.",
        unit="sessions",
        measure="sum(agent_sessions)",
        dimensions=("scope", "agent"),
        compared_by="agent_sessions",
    ),
)
