"""The columns of the core tables, as their DDL says them (pipelines/transform/columns.py reads them).

Long because it is one declaration per core table (27 of them), each its DDL's column list:
the core schema's part of the per-schema split (`_columns_<schema>.py`); cutting it further
would scatter one schema's declarations by line count, not by what they hold.
"""

from __future__ import annotations

CORE: dict[str, tuple[str, ...]] = {
    "core.daily_totals": (
        "scope VARCHAR NOT NULL", "scope_name VARCHAR NOT NULL", "day DATE NOT NULL", "report_kind VARCHAR NOT NULL",
        "organization_id VARCHAR", "enterprise_id VARCHAR", "user_initiated_interaction_count BIGINT",
        "code_generation_activity_count BIGINT", "code_acceptance_activity_count BIGINT",
        "loc_suggested_to_add_sum BIGINT", "loc_suggested_to_delete_sum BIGINT", "loc_added_sum BIGINT",
        "loc_deleted_sum BIGINT", "daily_active_users BIGINT", "weekly_active_users BIGINT",
        "monthly_active_users BIGINT", "monthly_active_chat_users BIGINT", "monthly_active_agent_users BIGINT",
        "pull_requests_total_created BIGINT", "pull_requests_total_reviewed BIGINT",
        "pull_requests_total_merged BIGINT", "pull_requests_median_minutes_to_merge DOUBLE",
        "pull_requests_total_suggestions BIGINT", "pull_requests_total_applied_suggestions BIGINT",
        "pull_requests_total_created_by_assistant BIGINT", "pull_requests_total_reviewed_by_assistant BIGINT",
        "agent_breakdown_present BOOLEAN NOT NULL", "extra JSON", "daily_active_cli_users BIGINT",
        "daily_active_assistant_code_review_users BIGINT", "daily_passive_assistant_code_review_users BIGINT",
        "weekly_active_assistant_code_review_users BIGINT", "weekly_passive_assistant_code_review_users BIGINT",
        "monthly_active_assistant_code_review_users BIGINT", "monthly_passive_assistant_code_review_users BIGINT",
        "pull_requests_total_merged_created_by_assistant BIGINT",
        "pull_requests_total_merged_reviewed_by_assistant BIGINT",
        "pull_requests_median_minutes_to_merge_assistant_authored DOUBLE",
        "pull_requests_median_minutes_to_merge_assistant_reviewed DOUBLE",
        "pull_requests_total_assistant_suggestions BIGINT",
        "pull_requests_total_assistant_applied_suggestions BIGINT", "fetched_at TIMESTAMP WITH TIME ZONE",
        "is_final BOOLEAN",
    ),
    "core.user_daily_totals": (
        "scope VARCHAR NOT NULL", "scope_name VARCHAR NOT NULL", "day DATE NOT NULL", "report_kind VARCHAR NOT NULL",
        "user_id BIGINT NOT NULL", "user_login VARCHAR", "organization_id VARCHAR", "enterprise_id VARCHAR",
        "used_agent BOOLEAN", "used_chat BOOLEAN", "used_cli BOOLEAN", "user_initiated_interaction_count BIGINT",
        "code_generation_activity_count BIGINT", "code_acceptance_activity_count BIGINT",
        "loc_suggested_to_add_sum BIGINT", "loc_suggested_to_delete_sum BIGINT", "loc_added_sum BIGINT",
        "loc_deleted_sum BIGINT", "agent_breakdown_present BOOLEAN NOT NULL", "extra JSON",
        "ai_credits_used DECIMAL(18,6)", "chat_panel_agent_mode BOOLEAN", "chat_panel_ask_mode BOOLEAN",
        "chat_panel_custom_mode BOOLEAN", "chat_panel_edit_mode BOOLEAN", "chat_panel_plan_mode BOOLEAN",
        "chat_panel_unknown_mode BOOLEAN", "used_assistant_code_review_active BOOLEAN",
        "used_assistant_code_review_passive BOOLEAN", "fetched_at TIMESTAMP WITH TIME ZONE", "is_final BOOLEAN",
    ),
    "core.breakdowns": (
        "scope VARCHAR NOT NULL", "scope_name VARCHAR NOT NULL", "level VARCHAR NOT NULL", "day DATE NOT NULL",
        "user_id BIGINT", "user_login VARCHAR", "kind VARCHAR NOT NULL", "ide VARCHAR", "feature VARCHAR",
        "language VARCHAR", "model VARCHAR", "user_initiated_interaction_count BIGINT",
        "code_generation_activity_count BIGINT", "code_acceptance_activity_count BIGINT",
        "loc_suggested_to_add_sum BIGINT", "loc_suggested_to_delete_sum BIGINT", "loc_added_sum BIGINT",
        "loc_deleted_sum BIGINT", "session_count BIGINT", "request_count BIGINT", "prompt_count BIGINT",
        "token_usage_output_tokens_sum BIGINT", "token_usage_prompt_tokens_sum BIGINT",
        "token_usage_avg_tokens_per_request DOUBLE", "ide_version VARCHAR",
        "ide_version_sampled_at TIMESTAMP WITH TIME ZONE", "plugin VARCHAR", "plugin_version VARCHAR",
        "plugin_version_sampled_at TIMESTAMP WITH TIME ZONE", "cli_version VARCHAR",
        "cli_version_sampled_at TIMESTAMP WITH TIME ZONE", "fetched_at TIMESTAMP WITH TIME ZONE", "is_final BOOLEAN",
    ),
    "core.agent_activity": (
        "scope VARCHAR NOT NULL", "scope_name VARCHAR NOT NULL", "level VARCHAR NOT NULL", "day DATE NOT NULL",
        "user_id BIGINT", "user_login VARCHAR", "agent_id VARCHAR NOT NULL", "agent_name VARCHAR NOT NULL",
        "agent_job_starts BIGINT", "session_count BIGINT", "fetched_at TIMESTAMP WITH TIME ZONE NOT NULL",
        "is_final BOOLEAN",
    ),
    "core.cli_customizations": (
        "scope VARCHAR NOT NULL", "scope_name VARCHAR NOT NULL", "level VARCHAR NOT NULL", "day DATE NOT NULL",
        "user_id BIGINT", "user_login VARCHAR", "category VARCHAR NOT NULL", "name VARCHAR NOT NULL",
        "interaction_count BIGINT", "fetched_at TIMESTAMP WITH TIME ZONE NOT NULL", "is_final BOOLEAN",
    ),
    "core.adoption_phases": (
        "scope VARCHAR NOT NULL", "scope_name VARCHAR NOT NULL", "day DATE NOT NULL", "phase_number BIGINT NOT NULL",
        "report_kind VARCHAR NOT NULL", "fetched_at TIMESTAMP WITH TIME ZONE NOT NULL", "is_final BOOLEAN",
    ),
    "core.feature_engagement": (
        "scope VARCHAR NOT NULL", "scope_name VARCHAR NOT NULL", "level VARCHAR NOT NULL",
        "report_kind VARCHAR NOT NULL", "day DATE NOT NULL", "feature VARCHAR NOT NULL", "engaged_user_count BIGINT",
        "active_user_count BIGINT", "fetched_at TIMESTAMP WITH TIME ZONE NOT NULL", "is_final BOOLEAN",
    ),
    "core.comment_types": (
        "scope VARCHAR NOT NULL", "scope_name VARCHAR NOT NULL", "day DATE NOT NULL", "comment_type VARCHAR NOT NULL",
        "total_assistant_suggestions BIGINT", "total_assistant_applied_suggestions BIGINT",
        "report_kind VARCHAR NOT NULL", "fetched_at TIMESTAMP WITH TIME ZONE NOT NULL", "is_final BOOLEAN",
    ),
    "core.user_report_days": (
        "scope VARCHAR", "scope_name VARCHAR", "day DATE", "user_records BIGINT NOT NULL",
        "active_users BIGINT NOT NULL", "users_with_agent_array BIGINT NOT NULL", "agent_breakdown_present BOOLEAN",
        "user_initiated_interaction_count BIGINT", "code_generation_activity_count BIGINT",
        "code_acceptance_activity_count BIGINT", "loc_suggested_to_add_sum BIGINT",
        "loc_suggested_to_delete_sum BIGINT", "loc_added_sum BIGINT", "loc_deleted_sum BIGINT",
        "cloud_agent_users BIGINT NOT NULL", "cloud_agent_carried BOOLEAN NOT NULL", "app_users BIGINT NOT NULL",
        "app_carried BOOLEAN NOT NULL", "vscode_agent_users BIGINT NOT NULL", "vscode_agent_carried BOOLEAN NOT NULL",
        "cli_users BIGINT NOT NULL", "cli_carried BOOLEAN NOT NULL", "is_final BOOLEAN",
        "fetched_at TIMESTAMP WITH TIME ZONE", "any_surface_active_users BIGINT DEFAULT 0",
        "ide_users BIGINT DEFAULT 0", "app_only_users BIGINT DEFAULT 0", "cli_only_users BIGINT DEFAULT 0",
        "other_surface_only_users BIGINT DEFAULT 0", "counts_only_users BIGINT DEFAULT 0",
        "inactive_users BIGINT DEFAULT 0",
    ),
    "core.organization_enterprise_days": (
        "scope VARCHAR", "scope_name VARCHAR", "day DATE", "enterprise VARCHAR", "shared_users BIGINT NOT NULL",
    ),
    "core.team_report_days": (
        "scope VARCHAR", "scope_name VARCHAR", "day DATE", "team_id BIGINT", "slug VARCHAR NOT NULL",
        "members BIGINT NOT NULL", "reported_users BIGINT NOT NULL", "active_users BIGINT NOT NULL",
        "third_party_agent_users BIGINT NOT NULL", "user_initiated_interaction_count BIGINT",
        "code_generation_activity_count BIGINT", "code_acceptance_activity_count BIGINT",
        "loc_suggested_to_add_sum BIGINT", "loc_added_sum BIGINT", "loc_deleted_sum BIGINT", "ai_credits_used DOUBLE",
        "is_final BOOLEAN", "membership_final BOOLEAN NOT NULL", "members_with_counts BIGINT",
    ),
    "core.team_agent_days": (
        "scope VARCHAR", "scope_name VARCHAR", "day DATE", "team_id BIGINT", "agent_id VARCHAR",
        "agent_users BIGINT NOT NULL", "agent_job_starts BIGINT", "is_final BOOLEAN",
    ),
    "core.phase_user_days": (
        "scope VARCHAR", "scope_name VARCHAR", "day DATE", "phase_number BIGINT", "users BIGINT NOT NULL",
    ),
    "core.agent_reach": (
        "scope VARCHAR", "scope_name VARCHAR", "day DATE", "agent_id VARCHAR", "users_since BIGINT[] NOT NULL",
    ),
    "core.team_reach": (
        "scope VARCHAR", "scope_name VARCHAR", "day DATE", "team_id BIGINT", "counted VARCHAR",
        "users_since BIGINT[] NOT NULL",
    ),
    "core.team_window_users": (
        "scope VARCHAR", "scope_name VARCHAR", "day DATE", "team_id BIGINT", "members BIGINT NOT NULL",
        "active_users BIGINT NOT NULL", "third_party_agent_users BIGINT NOT NULL", "listed_days BIGINT NOT NULL",
        "user_initiated_interaction_count BIGINT", "code_generation_activity_count BIGINT",
        "code_acceptance_activity_count BIGINT", "ai_credits_used DOUBLE", "active_user_days BIGINT",
        "active_user_days_squares BIGINT", "compared_days BIGINT NOT NULL",
    ),
    "core.agent_days": (
        "scope VARCHAR", "scope_name VARCHAR", "level VARCHAR", "day DATE", "agent_id VARCHAR", "agent_name VARCHAR",
        "agent_job_starts BIGINT", "fetched_at TIMESTAMP WITH TIME ZONE NOT NULL", "agent_users BIGINT",
        "session_count BIGINT",
    ),
    "core.dim_agent": (
        "agent_id VARCHAR", "agent_name VARCHAR NOT NULL", "first_seen_day DATE NOT NULL",
        "last_seen_day DATE NOT NULL",
    ),
    "core.agent_names": (
        "agent_id VARCHAR", "agent_name VARCHAR", "first_seen_day DATE NOT NULL", "last_seen_day DATE NOT NULL",
    ),
    "core.user_team_days": (
        "scope VARCHAR NOT NULL", "scope_name VARCHAR NOT NULL", "day DATE NOT NULL", "user_id BIGINT NOT NULL",
        "user_login VARCHAR", "entity_id VARCHAR", "team_id BIGINT NOT NULL", "slug VARCHAR NOT NULL",
        "fetched_at TIMESTAMP WITH TIME ZONE NOT NULL", "is_final BOOLEAN",
    ),
    "core.erased_user_days": (
        "scope VARCHAR", "scope_name VARCHAR", "day DATE", "people_erased BIGINT NOT NULL",
        "recorded_at TIMESTAMP WITH TIME ZONE NOT NULL",
    ),
    "core.service_incidents": (
        "incident_id VARCHAR", "first_day DATE NOT NULL", "last_day DATE NOT NULL",
        "days_approximate BOOLEAN NOT NULL", "scopes VARCHAR[] NOT NULL", "measures VARCHAR[] NOT NULL",
        "summary VARCHAR NOT NULL", "service_said VARCHAR NOT NULL",
    ),
    "core.team_days": (
        "scope VARCHAR", "scope_name VARCHAR", "day DATE", "team_id BIGINT", "slug VARCHAR NOT NULL",
        "members BIGINT NOT NULL", "fetched_at TIMESTAMP WITH TIME ZONE NOT NULL",
    ),
    "core.dim_team": (
        "scope VARCHAR", "scope_name VARCHAR", "team_id BIGINT", "slug VARCHAR NOT NULL",
        "first_seen_day DATE NOT NULL", "last_seen_day DATE NOT NULL",
    ),
    "core.repository_days": (
        "scope VARCHAR NOT NULL", "scope_name VARCHAR NOT NULL", "day DATE NOT NULL", "enterprise_id VARCHAR",
        "organization_id VARCHAR", "repo_id BIGINT NOT NULL", "repo_owner_name VARCHAR", "repo_name VARCHAR",
        "repo_visibility VARCHAR", "extra JSON", "fetched_at TIMESTAMP WITH TIME ZONE NOT NULL", "is_final BOOLEAN",
    ),
    "core.repository_review_times": (
        "scope VARCHAR NOT NULL", "scope_name VARCHAR NOT NULL", "day DATE NOT NULL", "repo_id BIGINT NOT NULL",
        "authored_by VARCHAR NOT NULL", "reviewed_by VARCHAR NOT NULL", "total_merged BIGINT",
        "median_minutes_ready_to_first_review DOUBLE", "p90_minutes_ready_to_first_review DOUBLE",
        "median_minutes_first_to_final_review DOUBLE", "p90_minutes_first_to_final_review DOUBLE",
        "median_minutes_final_review_to_merge DOUBLE", "p90_minutes_final_review_to_merge DOUBLE",
        "fetched_at TIMESTAMP WITH TIME ZONE NOT NULL", "is_final BOOLEAN",
    ),
    "core.repository_comment_types": (
        "scope VARCHAR NOT NULL", "scope_name VARCHAR NOT NULL", "day DATE NOT NULL", "repo_id BIGINT NOT NULL",
        "comment_type VARCHAR NOT NULL", "total_assistant_suggestions BIGINT",
        "total_assistant_applied_suggestions BIGINT", "fetched_at TIMESTAMP WITH TIME ZONE NOT NULL",
        "is_final BOOLEAN",
    ),
}
