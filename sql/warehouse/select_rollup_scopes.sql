-- Each scope's first and last day of facts the rollups are computed from.
SELECT scope, scope_name, min(day), max(day)
  FROM (SELECT scope, scope_name, day FROM core.user_daily_totals
        UNION ALL SELECT scope, scope_name, day FROM core.agent_activity
        UNION ALL SELECT scope, scope_name, day FROM core.user_team_days)
 GROUP BY ALL;
