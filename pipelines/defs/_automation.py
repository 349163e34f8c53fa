"""Whether schedules and sensors start on: a deployment turns them on with one setting."""

from __future__ import annotations

from dataclasses import dataclass

import dagster as dg


@dataclass(frozen=True)
class Automation:
    """`running`: schedules and sensors start on (METRICS_AUTOMATION); the UI can still switch each.

    `trailing_days`: days before the newest that the daily schedule fetches again, because a
    day's report may still change for three UTC days.
    """

    running: bool = False
    trailing_days: int = 3

    @property
    def schedule_status(self) -> dg.DefaultScheduleStatus:
        return dg.DefaultScheduleStatus.RUNNING if self.running else dg.DefaultScheduleStatus.STOPPED

    @property
    def sensor_status(self) -> dg.DefaultSensorStatus:
        return dg.DefaultSensorStatus.RUNNING if self.running else dg.DefaultSensorStatus.STOPPED
