"""The columns of the raw tables, as their DDL says them (pipelines/transform/columns.py reads them)."""

from __future__ import annotations

RAW: dict[str, tuple[str, ...]] = {
    "raw.report_files": (
        "scope VARCHAR", "scope_name VARCHAR", "report_kind VARCHAR", "level VARCHAR", "report_start_day DATE",
        "report_end_day DATE", "file_index INTEGER", "bytes BIGINT NOT NULL", "sha256 VARCHAR NOT NULL",
        "records BIGINT NOT NULL", "quarantined BIGINT NOT NULL", "archive_path VARCHAR NOT NULL",
        "link VARCHAR NOT NULL", "fetched_at TIMESTAMP WITH TIME ZONE NOT NULL", "repeated_lines BIGINT DEFAULT 0",
    ),
    "raw.report_fetches": (
        "scope VARCHAR", "scope_name VARCHAR", "level VARCHAR", "report_kind VARCHAR", "day DATE",
        "fetched_at TIMESTAMP WITH TIME ZONE", "is_final BOOLEAN NOT NULL", "report_start_day DATE NOT NULL",
        "report_end_day DATE NOT NULL", "records BIGINT NOT NULL", "agent_array_records BIGINT NOT NULL",
        "user_initiated_interaction_count BIGINT", "code_generation_activity_count BIGINT",
        "code_acceptance_activity_count BIGINT", "loc_suggested_to_add_sum BIGINT",
        "loc_suggested_to_delete_sum BIGINT", "loc_added_sum BIGINT", "loc_deleted_sum BIGINT", "active_users BIGINT",
        "agent_job_starts BIGINT",
    ),
    "raw.field_drift": (
        "scope VARCHAR", "scope_name VARCHAR", "level VARCHAR", "report_kind VARCHAR", "day DATE", "path VARCHAR",
        "drift VARCHAR", "records BIGINT NOT NULL", "json_type VARCHAR NOT NULL",
        "fetched_at TIMESTAMP WITH TIME ZONE NOT NULL",
    ),
    "raw.quarantine": (
        "scope VARCHAR NOT NULL", "scope_name VARCHAR NOT NULL", "report_kind VARCHAR NOT NULL",
        "level VARCHAR NOT NULL", "report_start_day DATE NOT NULL", "report_end_day DATE NOT NULL",
        "file_index INTEGER NOT NULL", "archive_path VARCHAR NOT NULL", "link VARCHAR NOT NULL",
        "line_number BIGINT NOT NULL", "reason VARCHAR NOT NULL", "line_text VARCHAR",
        "fetched_at TIMESTAMP WITH TIME ZONE NOT NULL", "cleared_at TIMESTAMP WITH TIME ZONE", "cleared_note VARCHAR",
    ),
}
