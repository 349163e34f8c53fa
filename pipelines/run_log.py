"""The full record of one `metrics-etl run` on disk: every Dagster event of its runs, whole error texts."""

from __future__ import annotations

import logging
import os
from datetime import UTC, datetime
from pathlib import Path

import dagster as dg

__all__ = ["RunLog"]

_PLANNED = frozenset({"ASSET_MATERIALIZATION_PLANNED", "ASSET_CHECK_EVALUATION_PLANNED"})


class RunLog:
    """The full record of one `metrics-etl run`: every Dagster event, whole error texts.

    A log that cannot be written (the disk that is full is often the warehouse's) never
    fails the run or hides its real error: the failure line then says why there is no log.
    """

    def __init__(self, directory: Path) -> None:
        stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
        self.path = directory / f"run-{stamp}-{os.getpid()}.log"
        self.problem: str | None = None

    def where(self) -> str:
        return f"full log: {self.path}" if self.problem is None else f"no log: {self.problem}"

    def write(self, label: str, result: dg.ExecuteInProcessResult, instance: dg.DagsterInstance) -> None:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self.path.open("a", encoding="utf-8") as log:
                log.write(f"== {label} (run {result.run_id}): {'success' if result.success else 'FAILED'}\n")
                for entry in instance.all_logs(result.run_id):
                    event = entry.dagster_event
                    if event is not None and event.event_type_value in _PLANNED:
                        continue  # one line per asset and day a run means to write; what it wrote follows
                    when = datetime.fromtimestamp(entry.timestamp, UTC).isoformat(timespec="seconds")
                    level = logging.getLevelName(entry.level)
                    # A Dagster event's text is its own message; user_message is only a log call's.
                    log.write(f"{when} {level} {entry.step_key or '-'} {entry.message}\n")
                    if event is not None and event.event_type_value == "STEP_FAILURE" and event.step_failure_data.error:
                        log.write(event.step_failure_data.error.to_string() + "\n")
        except OSError as exc:
            self.problem = f"{self.path} could not be written ({exc.strerror})"
