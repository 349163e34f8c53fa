"""The report record as this project knows it: field names and types, in one place.

Everything else (the DuckDB reader's column spec, the line validator, the table columns)
is derived from these tables, so a field added by the platform is a one-line change here.
Fields not listed are kept in the `extra` JSON column, never dropped.
"""

from __future__ import annotations

import polars as pl

# Scalar counts shared by a daily record and every breakdown element.
ACTIVITY_COUNTS: tuple[str, ...] = (
    "user_initiated_interaction_count",
    "code_generation_activity_count",
    "code_acceptance_activity_count",
    "loc_suggested_to_add_sum",
    "loc_suggested_to_delete_sum",
    "loc_added_sum",
    "loc_deleted_sum",
)

# Top-level scalar fields of a daily record (user or aggregate level) and their types.
RECORD_SCALARS: dict[str, pl.DataType] = {
    "day": pl.Date(),
    "organization_id": pl.String(),
    "enterprise_id": pl.String(),
    "user_id": pl.Int64(),
    "user_login": pl.String(),
    "used_agent": pl.Boolean(),
    "used_chat": pl.Boolean(),
    "used_cli": pl.Boolean(),
    **{name: pl.Int64() for name in ACTIVITY_COUNTS},
    "daily_active_users": pl.Int64(),
    "weekly_active_users": pl.Int64(),
    "monthly_active_users": pl.Int64(),
    "monthly_active_chat_users": pl.Int64(),
    "monthly_active_agent_users": pl.Int64(),
}

# Known objects whose scalar members become `<object>_<member>` columns.
RECORD_OBJECTS: dict[str, dict[str, pl.DataType]] = {
    "pull_requests": {
        "total_created": pl.Int64(),
        "total_reviewed": pl.Int64(),
        "total_merged": pl.Int64(),
        "median_minutes_to_merge": pl.Float64(),
        "total_suggestions": pl.Int64(),
        "total_applied_suggestions": pl.Int64(),
        "total_created_by_assistant": pl.Int64(),
        "total_reviewed_by_assistant": pl.Int64(),
    },
}

# Breakdown arrays: kind (as stored in core.breakdowns) -> (record field, key fields).
BREAKDOWN_ARRAYS: dict[str, tuple[str, tuple[str, ...]]] = {
    "ide": ("totals_by_ide", ("ide",)),
    "feature": ("totals_by_feature", ("feature",)),
    "language_feature": ("totals_by_language_feature", ("language", "feature")),
    "language_model": ("totals_by_language_model", ("language", "model")),
    "model_feature": ("totals_by_model_feature", ("model", "feature")),
}
BREAKDOWN_KEYS: tuple[str, ...] = ("ide", "feature", "language", "model")

# `totals_by_cli` is one object, stored as breakdown kind "cli" with no keys.
CLI_FIELD = "totals_by_cli"
CLI_COUNTS: dict[str, pl.DataType] = {
    "session_count": pl.Int64(),
    "request_count": pl.Int64(),
    "prompt_count": pl.Int64(),
}
CLI_TOKEN_USAGE: dict[str, pl.DataType] = {
    "output_tokens_sum": pl.Int64(),
    "prompt_tokens_sum": pl.Int64(),
    "avg_tokens_per_request": pl.Float64(),
}

AGENT_FIELD = "totals_by_3rd_party_agent"
AGENT_ENTRY: dict[str, pl.DataType] = {
    "agent_id": pl.String(),
    "agent_name": pl.String(),
    "user_initiated_interaction_count": pl.Int64(),
    "session_count": pl.Int64(),
}

# The 28-day aggregate file wraps its daily records.
DAY_TOTALS_WRAPPER = "day_totals"


def _breakdown_element(keys: tuple[str, ...]) -> pl.Struct:
    return pl.Struct({**{k: pl.String() for k in keys}, **{c: pl.Int64() for c in ACTIVITY_COUNTS}})


def record_dtype() -> dict[str, pl.DataType]:
    """The parsed record: every known field with its Polars type (nested ones as structs/lists)."""
    fields: dict[str, pl.DataType] = dict(RECORD_SCALARS)
    for name, members in RECORD_OBJECTS.items():
        fields[name] = pl.Struct(members)
    for _kind, (field, keys) in BREAKDOWN_ARRAYS.items():
        fields[field] = pl.List(_breakdown_element(keys))
    fields[CLI_FIELD] = pl.Struct({**CLI_COUNTS, "token_usage": pl.Struct(CLI_TOKEN_USAGE)})
    fields[AGENT_FIELD] = pl.List(pl.Struct(AGENT_ENTRY))
    return fields


KNOWN_FIELDS: frozenset[str] = frozenset(record_dtype())

# Flat counts of core.breakdowns, in column order.
BREAKDOWN_COUNTS: tuple[str, ...] = (
    *ACTIVITY_COUNTS,
    *CLI_COUNTS,
    *(f"token_usage_{k}" for k in CLI_TOKEN_USAGE),
)
