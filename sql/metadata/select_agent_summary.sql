-- Agents by agent_id with their latest label, earlier labels, and the aggregate-level job starts
-- of one scope: the widest (an enterprise before its organizations, as the page's headline),
-- never a sum over scopes, as an enterprise already includes its organizations. From
-- core.agent_days: a few rows a day, so the summary costs the same after years.
WITH main AS (
    SELECT scope, scope_name FROM (SELECT DISTINCT scope, scope_name FROM core.agent_days WHERE level = 'aggregate')
    ORDER BY scope = 'enterprise' DESC, scope_name LIMIT 1
)
SELECT d.agent_id, d.agent_name, d.first_seen_day, d.last_seen_day,
       (SELECT string_agg(n.agent_name, ', ' ORDER BY n.first_seen_day)
          FROM core.agent_names AS n WHERE n.agent_id = d.agent_id AND n.agent_name <> d.agent_name),
       coalesce((SELECT sum(a.agent_job_starts) FROM core.agent_days AS a, main AS m
                  WHERE a.agent_id = d.agent_id AND a.level = 'aggregate'
                    AND a.scope = m.scope AND a.scope_name = m.scope_name), 0),
       (SELECT scope || ' ' || scope_name FROM main)
FROM core.dim_agent AS d
ORDER BY 6 DESC, 1;
