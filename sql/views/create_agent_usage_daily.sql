-- bi.agent_usage_daily
-- Grain: one row per scope, scope_name, day and agent_id that appears in that day's aggregate
-- or user-level report. Labelled with the agent's latest name (core.dim_agent); group on agent_id.
-- agent_job_starts and agent_sessions come from the aggregate (organization/enterprise) report;
-- agent_users counts users whose user-level record lists the agent that day. A measure is 0 when
-- its report carried the agent array without this agent, and NULL when there was no report or no
-- array (a gap, never a zero). agent_job_starts is the nested count: it is a different measure
-- from the top-level interaction count in bi.assistant_activity_daily and must not be added to it.
-- There is no user-level session column: user-level entries carry none (docs/service-contract.md §2).
-- is_final: every report row of the day, of either level, was fetched after the day was final
-- (more than three full UTC days old); a provisional day is still filling in, not a drop.
CREATE OR REPLACE VIEW bi.agent_usage_daily AS
WITH aggregate_level AS (
    -- core.agent_days: the day's entries per agent and label (a few rows a day), never user rows.
    SELECT scope, scope_name, day, agent_id,
           CAST(sum(agent_job_starts) AS BIGINT) AS agent_job_starts,
           CAST(sum(session_count) AS BIGINT) AS agent_sessions
    FROM core.agent_days
    WHERE level = 'aggregate'
    GROUP BY scope, scope_name, day, agent_id
), user_level AS (
    -- A user's entry names one label: users of an agent's labels add up.
    SELECT scope, scope_name, day, agent_id, CAST(sum(agent_users) AS BIGINT) AS agent_users
    FROM core.agent_days
    WHERE level = 'user'
    GROUP BY scope, scope_name, day, agent_id
), aggregate_arrays AS (
    SELECT scope, scope_name, day, bool_or(agent_breakdown_present) AS carried, bool_and(is_final) AS final
    FROM core.daily_totals
    GROUP BY scope, scope_name, day
), user_arrays AS (
    SELECT scope, scope_name, day, agent_breakdown_present AS carried, is_final AS final
    FROM core.user_report_days
), keys AS (
    SELECT scope, scope_name, day, agent_id FROM aggregate_level
    UNION
    SELECT scope, scope_name, day, agent_id FROM user_level
)
SELECT
    k.scope,
    k.scope_name,
    k.day,
    k.agent_id,
    coalesce(d.agent_name, k.agent_id) AS agent_name,
    CASE WHEN a.agent_id IS NOT NULL THEN a.agent_job_starts WHEN aa.carried THEN 0 END AS agent_job_starts,
    CASE WHEN a.agent_id IS NOT NULL THEN a.agent_sessions WHEN aa.carried THEN 0 END AS agent_sessions,
    CASE WHEN u.agent_id IS NOT NULL THEN u.agent_users WHEN ua.carried THEN 0 END AS agent_users,
    coalesce(aa.final, TRUE) AND coalesce(ua.final, TRUE) AS is_final
FROM keys AS k
LEFT JOIN aggregate_level AS a USING (scope, scope_name, day, agent_id)
LEFT JOIN user_level AS u USING (scope, scope_name, day, agent_id)
LEFT JOIN aggregate_arrays AS aa USING (scope, scope_name, day)
LEFT JOIN user_arrays AS ua USING (scope, scope_name, day)
LEFT JOIN core.dim_agent AS d USING (agent_id);

COMMENT ON VIEW bi.agent_usage_daily IS 'One row per scope, day and agent_id: agent job starts and sessions (aggregate report), users with the agent (user-level report). NULL = no report or no agent array, never 0. is_final = false: the day was still filling in when fetched. Never add agent_job_starts to the top-level interaction count.';
