"""Checked after each snapshot, over the snapshot tables."""

from __future__ import annotations

from pathlib import Path

from pipelines.warehouse.checks import Check

_SQL = Path(__file__).parent / "sql"

SNAPSHOT_CHECKS: tuple[Check, ...] = (
    Check(
        "no_skipped_repositories",
        ("snapshots", "repositories"),
        _SQL / "count_snapshot_warnings.sql",
        "No repository was skipped (404/403) on the newest snapshot day.",
        blocking=False,
    ),
    Check(
        "every_repository_has_stats",
        ("snapshots", "repository_stats"),
        _SQL / "count_repositories_without_stats.sql",
        "Each repository of a day has its GraphQL counts, or a recorded warning.",
    ),
    Check(
        "counts_are_consistent",
        ("snapshots", "repository_stats"),
        _SQL / "count_negative_repository_stats.sql",
        "Counts are non-negative and open counts never exceed totals.",
    ),
    Check(
        "issues_belong_to_known_repositories",
        ("snapshots", "issues"),
        _SQL / "count_issues_of_unknown_repositories.sql",
        "Every issue joins to the repository snapshot of its day by numeric id.",
    ),
    Check(
        "members_visible",
        ("snapshots", "org_members"),
        _SQL / "count_days_without_members.sql",
        "Each snapshot day lists at least one organization member.",
    ),
    Check(
        "seat_snapshot_complete",
        ("snapshots", "seats"),
        _SQL / "count_incomplete_seat_snapshots.sql",
        "Each snapshot day and organization with a seat total holds exactly total_seats seats, with those "
        "left out (erased, or no table could hold them).",
    ),
    Check(
        "seats_landed",
        ("snapshots", "seats"),
        _SQL / "count_seats_left_out.sql",
        "No organization's seat was left out as no table could hold it on the newest snapshot day (how many, "
        "never whose).",
        blocking=False,
    ),
    Check(
        "seats_visible",
        ("snapshots", "seats"),
        _SQL / "count_seat_warnings.sql",
        "No organization's seats were refused (403) or not enabled (404) on the newest snapshot day.",
        blocking=False,
    ),
    Check(
        "seat_fields_are_declared",
        ("snapshots", "seats"),
        _SQL / "count_seat_field_drift.sql",
        "The seat listings of the newest snapshot day carried no field the seat schema does not declare, and "
        "each declared object as an object; such values land in the row's `extra` (`metrics-etl fields`).",
        blocking=False,
    ),
    Check(
        "enterprise_seat_snapshot_complete",
        ("snapshots", "enterprise_seats"),
        _SQL / "count_incomplete_enterprise_seat_snapshots.sql",
        "Each snapshot day and enterprise with a seat total holds exactly total_seats distinct seat holders, "
        "with those left out (erased, or no table could hold their seats).",
    ),
    Check(
        "enterprise_seats_landed",
        ("snapshots", "enterprise_seats"),
        _SQL / "count_enterprise_seats_left_out.sql",
        "No enterprise's seat was left out as no table could hold it on the newest snapshot day (how many, "
        "never whose).",
        blocking=False,
    ),
    Check(
        "enterprise_seats_visible",
        ("snapshots", "enterprise_seats"),
        _SQL / "count_enterprise_seat_warnings.sql",
        "No enterprise's seats were refused (403) or not enabled (404) on the newest snapshot day.",
        blocking=False,
    ),
)
