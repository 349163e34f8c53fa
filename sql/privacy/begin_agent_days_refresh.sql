-- After user rows left a scope's days (an erasure, retention): core.agent_days' user level of
-- those days goes, to be computed again from what core.agent_activity holds by
-- warehouse/refresh_agent_dimensions.sql, which also refreshes the agents these days named.
-- No day is kept from a 1-day report here (kept_days is a landing's).
CREATE OR REPLACE TEMP TABLE kept_days (day DATE);
CREATE OR REPLACE TEMP TABLE touched_agents AS
SELECT DISTINCT agent_id FROM core.agent_days
 WHERE level = $level AND scope = $scope AND scope_name = $scope_name AND day BETWEEN $start_day AND $end_day;
DELETE FROM core.agent_days
 WHERE level = $level AND scope = $scope AND scope_name = $scope_name AND day BETWEEN $start_day AND $end_day
