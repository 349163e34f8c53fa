-- How far along are our developers? On the newest day of each scope: each AI adoption phase's
-- rolling 28-day population and its share (where a 28-day report gave it), its users that day,
-- and what an engaged user of the phase does on average (averages per user: never add them up).
WITH latest AS (
    SELECT scope, scope_name, max(day) AS day FROM bi.adoption_phases GROUP BY ALL
)
SELECT a.scope, a.scope_name, a.day, a.phase_number, a.phase, a.population_28d,
       round(a.population_share, 3) AS population_share, a.engaged_users, a.users_in_user_report,
       a.avg_user_initiated_interactions, a.avg_pull_requests_merged
FROM bi.adoption_phases AS a
JOIN latest AS l USING (scope, scope_name, day)
ORDER BY a.scope, a.scope_name, a.phase_number;
