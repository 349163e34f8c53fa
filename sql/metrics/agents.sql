-- The rows of the agent metrics (pipelines/metrics/agents.py), from the aggregate tier: each
-- third-party agent app per scope and day (agent_daily) or 28-day period (agent_periods), a row
-- the tier hid under k kept with suppressed = true and every figure NULL. agent_job_starts is the
-- nested count of the aggregate report: never a part of the top-level interaction count.
CREATE OR REPLACE TEMP VIEW metrics_agent_daily AS
SELECT scope, scope_name, day, agent_id AS agent, agent_name, suppressed,
       agent_users, agent_job_starts, agent_sessions
FROM aggregate.agent_daily;

CREATE OR REPLACE TEMP VIEW metrics_agent_periods AS
SELECT scope, scope_name, period_start, period_end, agent_id AS agent, agent_name, suppressed,
       agent_users, agent_job_starts, agent_sessions
FROM aggregate.agent_periods;
