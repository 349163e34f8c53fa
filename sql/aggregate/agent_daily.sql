-- aggregate.agent_daily: bi.agent_usage_daily where _agent_day_status.sql shows the agent-day: $k or
-- more users of the agent that day, and no other scope's day of the agent (an enterprise's)
-- minus it, nor an enterprise's minus its organizations', leaving fewer than $k of them.
-- Otherwise the row stays, suppressed = true, every figure NULL. Rows of different agents are
-- about different figures and add up to no total the tier shows.
CREATE OR REPLACE TEMP TABLE aggregate_agent_daily AS
SELECT
    t.scope,
    t.scope_name,
    t.day,
    t.agent_id,
    t.agent_name,
    NOT s.shown AS suppressed,
    CASE WHEN s.shown THEN t.agent_job_starts END AS agent_job_starts,
    CASE WHEN s.shown THEN t.agent_sessions END AS agent_sessions,
    CASE WHEN s.shown THEN t.agent_users END AS agent_users,
    t.is_final
FROM bi.agent_usage_daily AS t
JOIN aggregate_agent_day_status AS s USING (scope, scope_name, day, agent_id)
ORDER BY t.scope, t.scope_name, t.day, t.agent_id
