-- aggregate.agent_daily: bi.agent_usage_daily without any agent-day about fewer than $k people.
-- An agent used by fewer than $k people that day, or by a number no user-level report told,
-- keeps its row, suppressed = true, every figure NULL. No total over agents is shown, so no
-- suppressed row can be worked out from the others.
CREATE OR REPLACE TEMP TABLE aggregate_agent_daily AS
SELECT
    scope,
    scope_name,
    day,
    agent_id,
    agent_name,
    agent_users < $k OR agent_users IS NULL AS suppressed,
    CASE WHEN agent_users >= $k THEN agent_job_starts END AS agent_job_starts,
    CASE WHEN agent_users >= $k THEN agent_sessions END AS agent_sessions,
    CASE WHEN agent_users >= $k THEN agent_users END AS agent_users,
    is_final
FROM bi.agent_usage_daily
ORDER BY scope, scope_name, day, agent_id
