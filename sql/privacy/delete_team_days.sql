-- After memberships left a scope's days (an erasure, retention): those days' team rows go, to be
-- counted again from what core.user_team_days holds by warehouse/refresh_team_dimensions.sql
-- (warehouse/begin_user_teams.sql has kept the teams they named aside).
DELETE FROM core.team_days
 WHERE scope = $scope AND scope_name = $scope_name AND day BETWEEN $start_day AND $end_day
