"""Dagster's freshness check on the daily usage data: by 09:00 UTC, yesterday's day has landed.

A day's report exists once the day has ended (UTC); the daily schedule fetches it at 06:00 and
the availability sensor as soon as it appears, so a day still missing at 09:00 is late. The
check is Dagster's own: every usage_daily_job run evaluates it after landing (so a cron-driven
`metrics-etl run` does too), and its sensor evaluates it on the daemon when no run comes.
"""

from __future__ import annotations

import warnings

import dagster as dg

from pipelines.defs._automation import Automation

__all__ = ["FRESHNESS_CHECKS", "build_freshness_sensor"]

DEADLINE_CRON = "0 9 * * *"
FRESH_ASSET = dg.AssetKey(["core", "daily_totals"])

with warnings.catch_warnings():
    # Superseded by freshness policies, which only the newest daemons evaluate and which no sensor
    # can read yet; this check records an evaluation like any other.
    warnings.simplefilter("ignore", dg.SupersessionWarning)
    FRESHNESS_CHECKS = tuple(
        dg.build_time_partition_freshness_checks(
            assets=[FRESH_ASSET], deadline_cron=DEADLINE_CRON, timezone="UTC", severity=dg.AssetCheckSeverity.WARN
        )
    )


def build_freshness_sensor(automation: Automation) -> dg.SensorDefinition:
    """Every 5 minutes: evaluates the check once it may be overdue (a failed one waits for a landing)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", dg.SupersessionWarning)
        return dg.build_sensor_for_freshness_checks(
            freshness_checks=FRESHNESS_CHECKS,
            minimum_interval_seconds=300,
            default_status=automation.sensor_status,
        )
