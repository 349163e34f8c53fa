-- bi.repository_outcomes_daily
-- Grain: one row per scope, scope_name, day and repo_id: each repository active that day in the
-- repos-1-day report. Its name and visibility are the newest snapshot's (snapshots.repositories,
-- joined by repo_id = repository_id: a renamed repository shows its current name on every day),
-- else the report's own (in_snapshot false: not snapshotted, or gone).
-- Pull requests created, reviewed and merged, and those the assistant created or reviewed
-- (merged too), with their median minutes to merge. Suggestions: all review suggestions, the
-- assistant's and how many were applied, and suggestions_by_comment_type, a list of
-- (comment_type, suggestions, applied) for the assistant's review. Review times: the pull
-- requests a person wrote and a person reviewed, merged that day (human_reviewed_merged), and
-- the median and p90 minutes of each stage, NULL (never 0) on a day without such a merge or
-- before the report carried them (2026-09-25). Never sum a median.
CREATE OR REPLACE VIEW bi.repository_outcomes_daily AS
WITH snapshot AS (
    SELECT repository_id, full_name, visibility
    FROM snapshots.repositories
    QUALIFY row_number() OVER (PARTITION BY repository_id ORDER BY snapshot_day DESC) = 1
), comment_types AS (
    SELECT scope, scope_name, day, repo_id,
           list({'comment_type': comment_type, 'suggestions': total_assistant_suggestions,
                 'applied': total_assistant_applied_suggestions} ORDER BY comment_type) AS suggestions_by_comment_type
    FROM core.repository_comment_types
    GROUP BY ALL
), human_reviews AS (
    SELECT scope, scope_name, day, repo_id, total_merged,
           median_minutes_ready_to_first_review, p90_minutes_ready_to_first_review,
           median_minutes_first_to_final_review, p90_minutes_first_to_final_review,
           median_minutes_final_review_to_merge, p90_minutes_final_review_to_merge
    FROM core.repository_review_times
    WHERE authored_by = 'human' AND reviewed_by = 'human'
)
SELECT
    r.scope,
    r.scope_name,
    r.day,
    r.repo_id,
    coalesce(s.full_name, concat_ws('/', r.repo_owner_name, r.repo_name)) AS repository,
    -- The report writes PRIVATE, INTERNAL, PUBLIC; the snapshot (REST) the same in lower case.
    coalesce(s.visibility, lower(r.repo_visibility)) AS visibility,
    s.repository_id IS NOT NULL AS in_snapshot,
    r.pull_requests_total_created AS created,
    r.pull_requests_total_created_by_assistant AS created_by_assistant,
    r.pull_requests_total_reviewed AS reviewed,
    r.pull_requests_total_reviewed_by_assistant AS reviewed_by_assistant,
    r.pull_requests_total_merged AS merged,
    r.pull_requests_total_merged_created_by_assistant AS merged_created_by_assistant,
    r.pull_requests_total_merged_reviewed_by_assistant AS merged_reviewed_by_assistant,
    r.pull_requests_median_minutes_to_merge AS median_minutes_to_merge,
    r.pull_requests_median_minutes_to_merge_assistant_authored AS median_minutes_to_merge_assistant_authored,
    r.pull_requests_median_minutes_to_merge_assistant_reviewed AS median_minutes_to_merge_assistant_reviewed,
    r.pull_requests_total_suggestions AS suggestions,
    r.pull_requests_total_applied_suggestions AS applied_suggestions,
    r.pull_requests_total_assistant_suggestions AS assistant_suggestions,
    r.pull_requests_total_assistant_applied_suggestions AS assistant_applied_suggestions,
    c.suggestions_by_comment_type,
    h.total_merged AS human_reviewed_merged,
    h.median_minutes_ready_to_first_review,
    h.p90_minutes_ready_to_first_review,
    h.median_minutes_first_to_final_review,
    h.p90_minutes_first_to_final_review,
    h.median_minutes_final_review_to_merge,
    h.p90_minutes_final_review_to_merge,
    r.is_final
FROM core.repository_days AS r
LEFT JOIN snapshot AS s ON s.repository_id = r.repo_id
LEFT JOIN comment_types AS c USING (scope, scope_name, day, repo_id)
LEFT JOIN human_reviews AS h USING (scope, scope_name, day, repo_id);

COMMENT ON VIEW bi.repository_outcomes_daily IS 'One row per scope, day and repository active that day (repos-1-day): its name and visibility from the newest snapshot, pull requests created, reviewed and merged by and with the assistant, suggestions applied by comment type, and the review stage times (median, p90 minutes) of pull requests a person wrote and reviewed, NULL on a day without such a merge.';
