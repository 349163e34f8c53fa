-- Extension: every team of core.team_days has its latest slug in core.dim_team.
-- Over a slice, as every report check.
SELECT count(*) AS failures, string_agg(CAST(team_id AS VARCHAR), ', ') AS detail
FROM (
    SELECT DISTINCT scope, scope_name, team_id FROM core.team_days
     WHERE day BETWEEN $start_day AND $end_day AND ($scope IS NULL OR (scope = $scope AND scope_name = $scope_name))
    EXCEPT SELECT scope, scope_name, team_id FROM core.dim_team
);
