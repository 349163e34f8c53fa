-- The Cost section's teams: each scope's net cost charged back to each team (bi.chargeback_by_team)
-- over the same newest 28 days with billing data as select_periods.sql, the most first, with the
-- rules that allocated it; what could not be allocated last (team_id NULL), with its reasons.
WITH bounds AS (
    SELECT scope, scope_name, max(day) AS last_day FROM bi.cost_daily GROUP BY ALL
)
SELECT c.scope, c.scope_name, c.team_id, c.team, sum(c.net_amount) AS net,
       string_agg(DISTINCT c.rule, ', ' ORDER BY c.rule) AS rules,
       string_agg(DISTINCT c.reason, ' | ' ORDER BY c.reason) AS reasons
FROM bi.chargeback_by_team AS c
JOIN bounds AS b ON b.scope = c.scope AND b.scope_name = c.scope_name AND c.day BETWEEN b.last_day - 27 AND b.last_day
GROUP BY c.scope, c.scope_name, c.team_id, c.team
ORDER BY c.scope = 'enterprise' DESC, c.scope_name, c.team_id IS NULL, net DESC, c.team;
