-- The rows of the team metrics (pipelines/metrics/teams.py), from the aggregate tier: each team
-- per scope and day (team_daily) or 28-day period (team_periods), its members active that day or
-- in the period; a row the tier hid under k kept with suppressed = true and every figure NULL.
CREATE OR REPLACE TEMP VIEW metrics_team_daily AS
SELECT scope, scope_name, day, team_id AS team, team_slug AS team_name, suppressed, active_users
FROM aggregate.team_daily;

CREATE OR REPLACE TEMP VIEW metrics_team_periods AS
SELECT scope, scope_name, period_start, period_end, team_id AS team, team_slug AS team_name, suppressed,
       active_users
FROM aggregate.team_periods;
