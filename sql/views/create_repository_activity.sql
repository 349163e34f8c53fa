-- bi.repository_activity
-- Grain: one row per repository_id and snapshot_day (a renamed repository keeps its id).
-- Stars, forks and open issue/pull request totals come from the GraphQL statistics, falling back
-- to the REST record where GraphQL skipped the repository. The *_28d columns count the issues
-- snapshot: opened (created_at) or closed (closed_at) in the 28 days up to the snapshot day.
CREATE OR REPLACE VIEW bi.repository_activity AS
WITH issue_counts AS (
    SELECT
        snapshot_day,
        repository_id,
        count(*) FILTER (WHERE NOT is_pull_request AND created_at >= snapshot_day - INTERVAL 28 DAY) AS issues_opened_28d,
        count(*) FILTER (WHERE NOT is_pull_request AND closed_at >= snapshot_day - INTERVAL 28 DAY) AS issues_closed_28d,
        count(*) FILTER (WHERE is_pull_request AND created_at >= snapshot_day - INTERVAL 28 DAY) AS pull_requests_opened_28d,
        count(*) FILTER (WHERE is_pull_request AND closed_at >= snapshot_day - INTERVAL 28 DAY) AS pull_requests_closed_28d
    FROM snapshots.issues
    GROUP BY snapshot_day, repository_id
)
SELECT
    r.snapshot_day,
    r.repository_id,
    r.full_name,
    r.visibility,
    r.archived,
    r.language,
    coalesce(s.stargazer_count, r.stargazers_count) AS stars,
    coalesce(s.fork_count, r.forks_count) AS forks,
    s.open_issue_count AS open_issues,
    s.open_pull_request_count AS open_pull_requests,
    s.issue_count AS issues_total,
    s.pull_request_count AS pull_requests_total,
    s.mentionable_user_count AS mentionable_users,
    coalesce(i.issues_opened_28d, 0) AS issues_opened_28d,
    coalesce(i.issues_closed_28d, 0) AS issues_closed_28d,
    coalesce(i.pull_requests_opened_28d, 0) AS pull_requests_opened_28d,
    coalesce(i.pull_requests_closed_28d, 0) AS pull_requests_closed_28d,
    r.pushed_at
FROM snapshots.repositories AS r
LEFT JOIN snapshots.repository_stats AS s USING (snapshot_day, repository_id)
LEFT JOIN issue_counts AS i USING (snapshot_day, repository_id);

COMMENT ON VIEW bi.repository_activity IS 'One row per repository_id and snapshot day: stars, forks, open issues and pull requests, issues and pull requests opened and closed in the 28 days up to the snapshot.';
