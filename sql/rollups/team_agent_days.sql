-- core.team_agent_days for a scope's days $start_day..$end_day: each day's memberships with the
-- members' 1-day user records and their third-party agent entries.
INSERT INTO core.team_agent_days BY NAME
SELECT t.scope, t.scope_name, t.day, t.team_id, a.agent_id,
       count(DISTINCT a.user_id) AS agent_users,
       CAST(sum(a.agent_job_starts) AS BIGINT) AS agent_job_starts,
       bool_and(u.is_final) AS is_final
  FROM core.user_team_days AS t
  JOIN core.user_daily_totals AS u
    ON u.scope = t.scope AND u.scope_name = t.scope_name AND u.day = t.day AND u.user_id = t.user_id
   AND u.report_kind = '1-day'
  JOIN core.agent_activity AS a
    ON a.level = 'user' AND a.scope = t.scope AND a.scope_name = t.scope_name AND a.day = t.day
   AND a.user_id = t.user_id
 WHERE t.scope = $scope AND t.scope_name = $scope_name AND t.day BETWEEN $start_day AND $end_day
 GROUP BY ALL;
