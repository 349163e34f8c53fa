-- By how many users? Distinct users of each agent app per 28-day period (user-level reports),
-- newest period first. A user of two agents counts once for each agent, so do not add rows up.
SELECT scope, scope_name, period_start, period_end, agent_id, agent_name, agent_users, previous_agent_users,
       agent_users_change
FROM bi.agent_usage_periods
ORDER BY scope, scope_name, period_index, agent_users DESC NULLS LAST, agent_id;
