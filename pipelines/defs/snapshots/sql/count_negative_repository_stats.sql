SELECT count(*) AS failures, string_agg(full_name || ' ' || snapshot_day, ', ') AS detail
FROM snapshots.repository_stats
WHERE least(stargazer_count, fork_count, open_issue_count, issue_count,
            open_pull_request_count, pull_request_count, mentionable_user_count) < 0
   OR open_issue_count > issue_count OR open_pull_request_count > pull_request_count;
