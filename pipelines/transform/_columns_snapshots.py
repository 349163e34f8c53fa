"""The columns of the snapshots tables, as their DDL says them (pipelines/transform/columns.py reads them)."""

from __future__ import annotations

SNAPSHOTS: dict[str, tuple[str, ...]] = {
    "snapshots.repositories": (
        "snapshot_day DATE", "repository_id BIGINT", "node_id VARCHAR", "full_name VARCHAR NOT NULL",
        "name VARCHAR NOT NULL", "owner_login VARCHAR", "owner_id BIGINT", "description VARCHAR",
        "visibility VARCHAR", "private BOOLEAN", "fork BOOLEAN", "archived BOOLEAN", "default_branch VARCHAR",
        "language VARCHAR", "size_kb BIGINT", "stargazers_count BIGINT", "watchers_count BIGINT",
        "forks_count BIGINT", "open_issues_count BIGINT", "created_at TIMESTAMP WITH TIME ZONE",
        "updated_at TIMESTAMP WITH TIME ZONE", "pushed_at TIMESTAMP WITH TIME ZONE",
    ),
    "snapshots.repository_stats": (
        "snapshot_day DATE", "repository_id BIGINT", "full_name VARCHAR NOT NULL", "stargazer_count BIGINT",
        "fork_count BIGINT", "open_issue_count BIGINT", "issue_count BIGINT", "open_pull_request_count BIGINT",
        "pull_request_count BIGINT", "mentionable_user_count BIGINT", "default_branch_name VARCHAR",
    ),
    "snapshots.issues": (
        "snapshot_day DATE", "issue_id BIGINT", "repository_id BIGINT NOT NULL",
        "repository_full_name VARCHAR NOT NULL", "number BIGINT NOT NULL", "title VARCHAR",
        "is_pull_request BOOLEAN NOT NULL", "state VARCHAR", "state_reason VARCHAR", "labels VARCHAR[] NOT NULL",
        "user_login VARCHAR", "user_id BIGINT", "comments BIGINT", "created_at TIMESTAMP WITH TIME ZONE",
        "updated_at TIMESTAMP WITH TIME ZONE", "closed_at TIMESTAMP WITH TIME ZONE",
    ),
    "snapshots.org_members": (
        "snapshot_day DATE", "org_login VARCHAR", "member_id BIGINT", "login VARCHAR NOT NULL", "type VARCHAR",
        "site_admin BOOLEAN",
    ),
    "snapshots.seats": (
        "snapshot_day DATE", "org_login VARCHAR", "user_id BIGINT", "login VARCHAR", "assigning_team_id BIGINT",
        "assigning_team_slug VARCHAR", "plan_type VARCHAR", "created_at TIMESTAMP WITH TIME ZONE",
        "updated_at TIMESTAMP WITH TIME ZONE", "pending_cancellation_date DATE",
        "last_activity_at TIMESTAMP WITH TIME ZONE", "last_activity_editor VARCHAR",
        "last_authenticated_at TIMESTAMP WITH TIME ZONE", "organization_login VARCHAR", "assigning_team_type VARCHAR",
        "extra JSON",
    ),
    "snapshots.seat_totals": (
        "snapshot_day DATE", "org_login VARCHAR", "total_seats BIGINT NOT NULL", "erased_seats BIGINT DEFAULT 0",
        "left_out_seats BIGINT DEFAULT 0",
    ),
    "snapshots.enterprise_seats": (
        "snapshot_day DATE", "enterprise VARCHAR", "user_id BIGINT", "granted_through VARCHAR", "granted_by VARCHAR",
        "login VARCHAR", "organization_login VARCHAR", "organization_id BIGINT", "assigning_team_id BIGINT",
        "assigning_team_slug VARCHAR", "assigning_team_type VARCHAR", "plan_type VARCHAR",
        "created_at TIMESTAMP WITH TIME ZONE", "updated_at TIMESTAMP WITH TIME ZONE",
        "pending_cancellation_date DATE", "last_activity_at TIMESTAMP WITH TIME ZONE", "last_activity_editor VARCHAR",
        "last_authenticated_at TIMESTAMP WITH TIME ZONE", "extra JSON",
    ),
    "snapshots.enterprise_seat_totals": (
        "snapshot_day DATE", "enterprise VARCHAR", "total_seats BIGINT NOT NULL", "erased_holders BIGINT DEFAULT 0",
        "left_out_holders BIGINT DEFAULT 0",
    ),
    "snapshots.unassigned_seats": (
        "snapshot_day DATE", "scope VARCHAR", "scope_name VARCHAR", "seat_number BIGINT", "assigning_team_id BIGINT",
        "assigning_team_slug VARCHAR", "plan_type VARCHAR", "created_at TIMESTAMP WITH TIME ZONE",
        "updated_at TIMESTAMP WITH TIME ZONE", "pending_cancellation_date DATE",
        "last_activity_at TIMESTAMP WITH TIME ZONE", "last_activity_editor VARCHAR",
        "last_authenticated_at TIMESTAMP WITH TIME ZONE", "organization_login VARCHAR", "assigning_team_type VARCHAR",
        "extra JSON",
    ),
    "snapshots.warnings": (
        "snapshot_day DATE", "repository VARCHAR", "endpoint VARCHAR", "status INTEGER NOT NULL",
        "message VARCHAR NOT NULL",
    ),
}
