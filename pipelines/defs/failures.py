"""Why a run failed, in one line, from its Dagster events: what `metrics-etl run` prints and what
an alert says, whether the run was made in process or by the daemon."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

import dagster as dg

from pipelines.warehouse.sql import first_meaningful_line

if TYPE_CHECKING:
    from dagster_shared.error import SerializableErrorInfo

__all__ = ["RUN_MEMORY_ADVICE", "describe_error", "failed_blocking_checks", "failure_cause"]


def failed_blocking_checks(events: Iterable[dg.DagsterEvent]) -> list[str]:
    """Failed blocking checks with their counts and details, e.g. which lines were quarantined."""
    failed = []
    for event in events:
        if event.event_type_value != "ASSET_CHECK_EVALUATION":
            continue
        check = event.asset_check_evaluation_data
        if check.passed or check.severity != dg.AssetCheckSeverity.ERROR:
            continue
        failures = check.metadata.get("failures")
        detail = check.metadata.get("detail")
        text = f"check {check.check_name} on {check.asset_key.to_user_string()}"
        if failures is not None:
            text += f" found {failures.value}"
        if detail is not None and detail.value:
            text += f" ({str(detail.value)[:300]})"
        failed.append(text)
    return failed


_OUT_OF_MEMORY = re.compile(r"Out of Memory Error|OutOfMemory", re.I)
# What to do when DuckDB runs out of memory in a run of days (a job may say what applies to it).
RUN_MEMORY_ADVICE = "DuckDB ran out of memory: run fewer days at once (--from/--to) or free memory, then run again"
# The real cause, in words a person acts on: (pattern in the error, what to do).
_REMEDIES: tuple[tuple[re.Pattern[str], str], ...] = (
    (
        re.compile(r"No space left on device|disk is full", re.I),
        "the disk is full: free space where the warehouse and RAW_DIR live, then run again",
    ),
    (
        re.compile(r"Could not set lock on file|Conflicting lock", re.I),
        "another process holds the warehouse open for writing (a running metrics-etl or dagster): "
        "wait for it or stop it, then run again",
    ),
)


def _root_error(error: SerializableErrorInfo) -> SerializableErrorInfo:
    """The exception that started it: Dagster wraps the user's error as its cause."""
    while error.cause is not None:
        error = error.cause
    return error


def describe_error(error: SerializableErrorInfo, *, memory_advice: str = RUN_MEMORY_ADVICE) -> str:
    """`Type: first meaningful line`, plus what to do when the cause is one we know."""
    root = _root_error(error)
    # Dagster's message repeats the class name, sometimes module-qualified (`_duckdb.X: ...`).
    message = re.sub(rf"^(?:[\w.]+\.)?{re.escape(root.cls_name or '')}: ", "", root.message)
    line = first_meaningful_line(message)
    text = f"{root.cls_name}: {line}" if root.cls_name else line
    for pattern, remedy in ((_OUT_OF_MEMORY, memory_advice), *_REMEDIES):
        if pattern.search(root.message):
            return f"{remedy} ({text})"
    return text


def failure_cause(events: Sequence[dg.DagsterEvent], *, memory_advice: str = RUN_MEMORY_ADVICE) -> str:
    """The failed step and its cause (the failed blocking checks, when those stopped it), one line."""
    checks = "; ".join(failed_blocking_checks(events))
    for event in events:
        if event.event_type_value == "STEP_FAILURE":
            error = event.step_failure_data.error
            reason = checks or (describe_error(error, memory_advice=memory_advice) if error else "failed")
            return f"step {event.step_key}: {reason}"
    return checks or "run failed"
