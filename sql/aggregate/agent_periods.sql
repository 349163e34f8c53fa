-- aggregate.agent_periods: bi.agent_usage_periods (distinct users from the reach rollup
-- core.agent_reach, sums from core.agent_days) without any agent-period about fewer than $k
-- people. An agent used by fewer than $k people in the period, or by a number no user-level
-- report told, keeps its row, suppressed = true, every figure NULL. The change against the
-- previous period is not shown: it is worked out from that period's figures, which may be
-- suppressed. Periods count back from the newest reported day as in the full tier.
CREATE OR REPLACE TEMP TABLE aggregate_agent_periods AS
SELECT
    scope,
    scope_name,
    period_index,
    period_start,
    period_end,
    agent_id,
    agent_name,
    agent_users < $k OR agent_users IS NULL AS suppressed,
    CASE WHEN agent_users >= $k THEN active_days END AS active_days,
    CASE WHEN agent_users >= $k THEN agent_job_starts END AS agent_job_starts,
    CASE WHEN agent_users >= $k THEN agent_sessions END AS agent_sessions,
    CASE WHEN agent_users >= $k THEN agent_users END AS agent_users,
    CASE WHEN agent_users >= $k THEN job_starts_per_day END AS job_starts_per_day,
    CASE WHEN agent_users >= $k THEN users_per_day END AS users_per_day
FROM bi.agent_usage_periods
ORDER BY scope, scope_name, period_index, agent_id
