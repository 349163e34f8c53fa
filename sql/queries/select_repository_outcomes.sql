-- Which repositories does the assistant work in, and how do their reviews go? Over the newest 28
-- days of each scope: per repository, pull requests created and merged, the share the assistant
-- created, its review suggestions and the share applied, and the days' median review time from
-- ready to first review (a median of daily medians: read it as typical, never as an exact median).
-- One row per scope and repository (repo_id), named as on its newest day: a repository renamed,
-- or made private, within the 28 days is still one row. A repository is in the report of each
-- scope that holds it (its organization's and its enterprise's), each with that scope's figures.
WITH latest AS (
    SELECT scope, scope_name, max(day) AS last_day FROM bi.repository_outcomes_daily GROUP BY ALL
)
SELECT o.scope, o.scope_name, arg_max(o.repository, o.day) AS repository, arg_max(o.visibility, o.day) AS visibility,
       sum(o.created) AS created, sum(o.merged) AS merged,
       round(sum(o.created_by_assistant) / nullif(sum(o.created), 0), 3) AS created_by_assistant_share,
       sum(o.assistant_suggestions) AS assistant_suggestions,
       round(sum(o.assistant_applied_suggestions) / nullif(sum(o.assistant_suggestions), 0), 3) AS applied_share,
       median(o.median_minutes_ready_to_first_review) AS typical_minutes_to_first_review
FROM bi.repository_outcomes_daily AS o
JOIN latest AS l USING (scope, scope_name)
WHERE o.day > l.last_day - 28
GROUP BY o.scope, o.scope_name, o.repo_id
ORDER BY o.scope, o.scope_name, created DESC, repository;
