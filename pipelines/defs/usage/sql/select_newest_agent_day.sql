-- The newest day's agent activity at aggregate level, labelled with the latest name. The
-- newest day comes from core.agent_days (small); the facts of that one day are then read.
SELECT a.day, a.agent_id, d.agent_name, sum(a.agent_job_starts), sum(a.session_count)
FROM core.agent_activity AS a
JOIN core.dim_agent AS d USING (agent_id)
WHERE a.level = 'aggregate' AND a.day = (SELECT max(day) FROM core.agent_days WHERE level = 'aggregate')
GROUP BY ALL
ORDER BY 4 DESC;
