-- Last statements of a report's landing transaction, before its checks: the report's agent
-- labels per day (with their users and sessions), then core.dim_agent and core.agent_names for every agent id the report named
-- before or now. The latest label is the one of the latest day, ties broken by the latest
-- fetch (then by name, so the result is stable).
INSERT INTO core.agent_days (scope, scope_name, level, day, agent_id, agent_name, agent_job_starts, fetched_at,
                             agent_users, session_count)
SELECT scope, scope_name, level, day, agent_id, agent_name, sum(agent_job_starts), max(fetched_at),
       CASE WHEN any_value(level) = 'user' THEN count(DISTINCT user_id) END, CAST(sum(session_count) AS BIGINT)
  FROM core.agent_activity
 WHERE level = $level AND scope = $scope AND scope_name = $scope_name
   AND day BETWEEN $start_day AND $end_day AND day NOT IN (SELECT day FROM kept_days)
 GROUP BY ALL;
INSERT INTO touched_agents
SELECT DISTINCT agent_id FROM core.agent_days
 WHERE level = $level AND scope = $scope AND scope_name = $scope_name
   AND day BETWEEN $start_day AND $end_day;
DELETE FROM core.dim_agent WHERE agent_id IN (SELECT agent_id FROM touched_agents);
INSERT INTO core.dim_agent (agent_id, agent_name, first_seen_day, last_seen_day)
SELECT agent_id,
       arg_max(agent_name, (day, fetched_at, agent_name)),
       min(day),
       max(day)
  FROM core.agent_days
 WHERE agent_id IN (SELECT agent_id FROM touched_agents)
 GROUP BY agent_id;
DELETE FROM core.agent_names WHERE agent_id IN (SELECT agent_id FROM touched_agents);
INSERT INTO core.agent_names (agent_id, agent_name, first_seen_day, last_seen_day)
SELECT agent_id, agent_name, min(day), max(day)
  FROM core.agent_days
 WHERE agent_id IN (SELECT agent_id FROM touched_agents)
 GROUP BY agent_id, agent_name;
DROP TABLE touched_agents;
