-- Which agent labels were seen on which day, per scope and level, with their job starts: a
-- few rows per day however many users there are. core.dim_agent and core.agent_names are
-- refreshed from it for the agent ids a report touched, and run summaries read it, so neither
-- costs a scan of core.agent_activity.
CREATE TABLE core.agent_days (
    scope       VARCHAR NOT NULL,
    scope_name  VARCHAR NOT NULL,
    level       VARCHAR NOT NULL,
    day         DATE NOT NULL,
    agent_id    VARCHAR NOT NULL,
    agent_name  VARCHAR NOT NULL,
    agent_job_starts BIGINT,
    fetched_at  TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (scope, scope_name, level, day, agent_id, agent_name)
);
INSERT INTO core.agent_days
SELECT scope, scope_name, level, day, agent_id, agent_name, sum(agent_job_starts), max(fetched_at)
  FROM core.agent_activity
 GROUP BY ALL;
