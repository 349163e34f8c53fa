-- After a day's memberships landed: each listed team's slug and size per day, then
-- core.dim_team for every team the day named before or now. The latest slug is the one of the
-- latest day, ties broken by the latest fetch (then by slug, so the result is stable).
INSERT INTO core.team_days (scope, scope_name, day, team_id, slug, members, fetched_at)
SELECT scope, scope_name, day, team_id, arg_max(slug, fetched_at), count(DISTINCT user_id), max(fetched_at)
  FROM core.user_team_days
 WHERE scope = $scope AND scope_name = $scope_name AND day BETWEEN $start_day AND $end_day
 GROUP BY ALL;
INSERT INTO touched_teams
SELECT DISTINCT team_id FROM core.team_days
 WHERE scope = $scope AND scope_name = $scope_name AND day BETWEEN $start_day AND $end_day;
DELETE FROM core.dim_team
 WHERE scope = $scope AND scope_name = $scope_name AND team_id IN (SELECT team_id FROM touched_teams);
INSERT INTO core.dim_team (scope, scope_name, team_id, slug, first_seen_day, last_seen_day)
SELECT scope, scope_name, team_id, arg_max(slug, (day, fetched_at, slug)), min(day), max(day)
  FROM core.team_days
 WHERE scope = $scope AND scope_name = $scope_name AND team_id IN (SELECT team_id FROM touched_teams)
 GROUP BY ALL;
DROP TABLE touched_teams;
