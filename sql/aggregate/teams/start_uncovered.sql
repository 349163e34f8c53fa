-- No team-day hidden yet by uncovered_teams.sql.
CREATE OR REPLACE TEMP TABLE aggregate_uncovered_hidden
    (scope VARCHAR, scope_name VARCHAR, day DATE, team_id BIGINT)
