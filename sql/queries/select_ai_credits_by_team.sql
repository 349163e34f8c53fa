-- AI credits by team (extension: teams and credits) over the last 28 days of team data: the
-- credits of the team's members on the days they were on it (a usage signal, not a bill), with
-- credits per active member-day. A user on two teams counts in both, so teams do not add up to
-- the organization: for the organization's total, sum bi.ai_credits_daily.
WITH bounds AS (
    SELECT scope, scope_name, max(day) AS last_day FROM bi.team_usage_daily GROUP BY ALL
)
SELECT t.scope, t.scope_name, t.team_id, t.team_slug,
       sum(t.ai_credits_used) AS ai_credits_used,
       sum(t.active_users) AS active_member_days,
       CASE WHEN sum(t.active_users) > 0 THEN round(sum(t.ai_credits_used) / sum(t.active_users), 2) END
           AS credits_per_active_member_day
FROM bi.team_usage_daily AS t
JOIN bounds AS b USING (scope, scope_name)
WHERE t.day > b.last_day - 28
GROUP BY ALL
ORDER BY t.scope, t.scope_name, ai_credits_used DESC, t.team_id;
