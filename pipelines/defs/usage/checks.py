"""Checked after a usage run's reports, over what the run fetched or the days it covered.

The grain, sign and agent checks run inside each report's transaction (pipelines.warehouse.checks);
their results are reported here with these.
"""

from __future__ import annotations

from pathlib import Path

from pipelines.warehouse.checks import Check

_SQL = Path(__file__).parent / "sql"

RUN_CHECKS: tuple[Check, ...] = (
    Check(
        "quarantine_is_empty",
        ("raw", "report_files"),
        _SQL / "count_quarantined_lines.sql",
        "Every line of the reports this run fetched landed; quarantined lines (raw.quarantine, "
        "`metrics-etl quarantine list`) need a look. Lines found by earlier runs do not count.",
    ),
    Check(
        "days_without_agent_array",
        ("core", "daily_totals"),
        _SQL / "count_days_without_agent_array.sql",
        "Days of the run whose report carried no third-party agent array (a gap, not zero).",
        blocking=False,
    ),
    Check(
        "reconciliation_holds",
        ("core", "daily_totals"),
        _SQL / "count_unreconciled_days.sql",
        "On the run's final days, the aggregate report agrees with the sum of the user-level report (and an "
        "organization stays within its enterprise) to 1%, or bi.reconciliation names the reason they differ.",
        blocking=False,
    ),
    Check(
        "provisional_days_fetched_again",
        ("raw", "report_fetches"),
        _SQL / "count_days_still_provisional.sql",
        "Every day old enough to be final (more than three full UTC days) was fetched again once final; "
        "a day whose newest fetch was provisional keeps its early, lagging numbers until `metrics-etl run --day D`.",
        blocking=False,
    ),
    Check(
        "fields_are_declared",
        ("raw", "field_drift"),
        _SQL / "count_field_drift.sql",
        "The reports this run fetched carried no field the schema does not declare, and every declared field "
        "in its type; such values land as NULL with the raw value in the row's `extra` (`metrics-etl fields`).",
        blocking=False,
    ),
    Check(
        "fresh_against_available_day",
        ("core", "daily_totals"),
        _SQL / "count_stale_usage_days.sql",
        "The newest landed day is at most a day older than the newest available report day.",
        blocking=False,
    ),
)
