"""The columns of the vendor tables, as their DDL says them (pipelines/transform/columns.py reads
them): Claude Code's and Cursor's own usage, each documented figure typed (docs/vendors.md).

Every row names its person by the email the vendor sends (and Cursor's user id where it sends
one): the catalog declares those columns (`Table.email`, `Table.vendor_id`) for erasure and
retention. Money stays in the unit the vendor sends it in (cents), DECIMAL, never floating point.
A usage row says when it was fetched and whether its day was final then (the vendor's lag had
passed), and keeps what the declarations do not name in `extra` (told as drift).
"""

from __future__ import annotations

_CENTS = "DECIMAL(38,6)"
_DOLLARS = "DECIMAL(18,6)"
_LANDED = (
    "is_final BOOLEAN NOT NULL",
    "fetched_at TIMESTAMP WITH TIME ZONE NOT NULL",
    "extra JSON",
)
# Who a Claude Code record is: a user (by email) or an API key (by its name).
_ACTOR = ("day DATE", "actor_type VARCHAR", "actor VARCHAR", "email VARCHAR")
_TOOLS = ("edit_tool", "multi_edit_tool", "write_tool", "notebook_edit_tool")

VENDORS: dict[str, tuple[str, ...]] = {
    "vendors.claude_code_days": (
        *_ACTOR,
        "api_key_name VARCHAR",
        "organization_id VARCHAR",
        "customer_type VARCHAR",
        "subscription_type VARCHAR",
        "terminal_type VARCHAR",
        "num_sessions BIGINT",
        "lines_added BIGINT",
        "lines_removed BIGINT",
        "commits BIGINT",
        "pull_requests BIGINT",
        *(f"{tool}_{verdict} BIGINT" for tool in _TOOLS for verdict in ("accepted", "rejected")),
        *_LANDED,
    ),
    "vendors.claude_code_models": (
        *_ACTOR,
        "model VARCHAR",
        "input_tokens BIGINT",
        "output_tokens BIGINT",
        "cache_read_tokens BIGINT",
        "cache_creation_tokens BIGINT",
        f"estimated_cost_cents {_CENTS}",
        "currency VARCHAR",
        *_LANDED,
    ),
    "vendors.cursor_days": (
        "day DATE",
        "email VARCHAR",
        "user_id VARCHAR",
        "is_active BOOLEAN",
        "total_lines_added BIGINT",
        "total_lines_deleted BIGINT",
        "accepted_lines_added BIGINT",
        "accepted_lines_deleted BIGINT",
        "total_applies BIGINT",
        "total_accepts BIGINT",
        "total_rejects BIGINT",
        "total_tabs_shown BIGINT",
        "total_tabs_accepted BIGINT",
        "composer_requests BIGINT",
        "chat_requests BIGINT",
        "agent_requests BIGINT",
        "cmdk_usages BIGINT",
        "subscription_included_reqs BIGINT",
        "api_key_reqs BIGINT",
        "usage_based_reqs BIGINT",
        "bugbot_usages BIGINT",
        "most_used_model VARCHAR",
        "apply_most_used_extension VARCHAR",
        "tab_most_used_extension VARCHAR",
        "client_version VARCHAR",
        *_LANDED,
    ),
    "vendors.cursor_spend": (
        "cycle_start DATE",
        "email VARCHAR",
        "name VARCHAR",
        "role VARCHAR",
        f"spend_cents {_CENTS}",
        "fast_premium_requests BIGINT",
        f"hard_limit_override_dollars {_DOLLARS}",
        "read_day DATE NOT NULL",
        "fetched_at TIMESTAMP WITH TIME ZONE NOT NULL",
        "extra JSON",
        # Cursor's current page (sql/schema/100 added them to a table made before).
        "user_id VARCHAR",
        f"overall_spend_cents {_CENTS}",
        f"monthly_limit_dollars {_DOLLARS}",
        f"effective_per_user_limit_dollars {_DOLLARS}",
    ),
    "vendors.cursor_members": (
        "snapshot_day DATE",
        "email VARCHAR",
        "user_id VARCHAR",
        "name VARCHAR",
        "role VARCHAR",
        "is_removed BOOLEAN",
        "fetched_at TIMESTAMP WITH TIME ZONE NOT NULL",
        "extra JSON",
    ),
    "vendors.fetches": (
        "vendor VARCHAR",
        "endpoint VARCHAR",
        "day DATE",
        "fetched_at TIMESTAMP WITH TIME ZONE",
        "served_at TIMESTAMP WITH TIME ZONE",
        "is_final BOOLEAN NOT NULL",
        "status VARCHAR NOT NULL",
        "calls BIGINT NOT NULL",
        "records BIGINT NOT NULL",
        "quarantined BIGINT NOT NULL",
        "message VARCHAR",
    ),
    # The operator's identity file (IDENTITY_MAP_PATH) as last read: each good line, email as
    # compared (trimmed, lower case), the login as written, its line number for whoever reads it
    # back, and the login's user id where a seat shows it (erasure finds the person by either).
    "vendors.operator_identities": (
        "read_day DATE NOT NULL",
        "email VARCHAR NOT NULL",
        "login VARCHAR NOT NULL",
        "user_id BIGINT",
        "line_number BIGINT NOT NULL",
    ),
}
