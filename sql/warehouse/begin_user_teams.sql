-- A day's memberships are replaced inside its user report's landing transaction (extension:
-- docs/extensions.md); the deletes of the day's rows follow, one per table the catalog says
-- the user-teams report replaces. The teams the old rows named are kept aside, so their
-- core.dim_team row is refreshed too (a team gone from the report keeps its slug from the days
-- it was seen).
CREATE OR REPLACE TEMP TABLE touched_teams AS
SELECT DISTINCT team_id FROM core.team_days
 WHERE scope = $scope AND scope_name = $scope_name AND day BETWEEN $start_day AND $end_day;
