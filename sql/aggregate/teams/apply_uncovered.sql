-- Every team-day uncovered_teams.sql hid, of every day (aggregate_uncovered_kept, registered by
-- aggregate.py), is not shown.
UPDATE aggregate_team_day_status AS s
SET shown = FALSE
FROM aggregate_uncovered_kept AS h
WHERE s.scope = h.scope AND s.scope_name = h.scope_name AND s.day = h.day AND s.team_id = h.team_id
