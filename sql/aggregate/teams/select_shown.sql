-- Each day's team-days shown before teams/uncovered_teams.sql (aggregate_team_day_status): a
-- day's hidden teams are worked out again when these change.
SELECT CAST(day AS VARCHAR) AS day, md5(string_agg(scope || '/' || scope_name || '/' || team_id, ','
                                                   ORDER BY scope, scope_name, team_id)) AS teams
FROM aggregate_team_day_status
WHERE shown
GROUP BY day
