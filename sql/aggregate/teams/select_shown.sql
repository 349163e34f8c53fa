-- Each day's team-days shown before teams/uncovered_teams.sql (aggregate_team_day_status) and
-- its scopes' counts (daily_active_users, beside the users their lines tell): a day's hidden
-- teams are worked out again when these change.
WITH teams AS (
    SELECT day, md5(string_agg(scope || '/' || scope_name || '/' || team_id, ',' ORDER BY scope, scope_name, team_id))
               AS teams
    FROM aggregate_team_day_status
    WHERE shown
    GROUP BY day
), counts AS (
    SELECT day, md5(string_agg(scope || '/' || scope_name || '/' || coalesce(CAST(dau AS VARCHAR), ''), ','
                               ORDER BY scope, scope_name)) AS counts
    FROM aggregate_scope_day_status
    GROUP BY day
)
SELECT CAST(t.day AS VARCHAR) AS day, t.teams || '|' || coalesce(c.counts, '') AS teams
FROM teams AS t
LEFT JOIN counts AS c USING (day)
