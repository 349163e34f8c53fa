-- Agents by agent_id with their latest label, earlier labels, and aggregate-level job starts
-- (from core.agent_days: a few rows a day, so the summary costs the same after years).
SELECT d.agent_id, d.agent_name, d.first_seen_day, d.last_seen_day,
       (SELECT string_agg(n.agent_name, ', ' ORDER BY n.first_seen_day)
          FROM core.agent_names AS n WHERE n.agent_id = d.agent_id AND n.agent_name <> d.agent_name),
       coalesce((SELECT sum(a.agent_job_starts) FROM core.agent_days AS a
                  WHERE a.agent_id = d.agent_id AND a.level = 'aggregate' AND a.scope = 'organization'), 0)
FROM core.dim_agent AS d
ORDER BY 6 DESC, 1;
