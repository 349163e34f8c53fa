-- The team-days shown so far of the days $days, worked out again by uncovered_teams.sql.
CREATE OR REPLACE TEMP TABLE aggregate_uncovered_shown AS
SELECT scope, scope_name, day, team_id
FROM aggregate_team_day_status
WHERE shown AND day IN (SELECT unnest(CAST($days AS DATE[])))
