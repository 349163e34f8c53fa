-- aggregate.team_periods: bi.team_usage_periods (distinct users from the reach rollup
-- core.team_reach, sums from core.team_report_days) without any team-period about fewer than
-- $k people. Its figures are its active users' (an inactive member adds nothing to a sum):
--   1. fewer than $k active users in the period: not shown;
--   2. a day of the team in the period not shown by team_daily: the period minus its shown days
--      would be the hidden days' figures, about people who may be fewer than $k, so not shown;
--   3. a team-period that could be a part of a shown scope period (each sum at most the scope's)
--      with fewer than $k of the scope's people left beside its own, or that could hold a whole
--      shown scope period with fewer than $k people beside the scope's, or whose active users and
--      the scope's 28-day count are 1..$k-1 apart (the same sums: the service's count holds users
--      only its telemetry saw, the team's members active on surfaces it leaves out): not shown;
--   4. whatever the sums, a team-period whose active users are 1..$k-1 more or fewer than a
--      shown scope period's 28-day count: were the one's people all the other's, the difference
--      would be those few people, and which users the service counted cannot be told;
--   5. a team-period that could be a part of another's of the same period (each sum and its
--      active users at most the other's) with 1..$k-1 fewer active users: those few would be the
--      difference of the two counts, so not shown. (Its sums are safe by 2: each of its days was
--      shown, so no day of another team holds it but for fewer than $k people.)
-- Such a row stays, suppressed = true, every figure NULL. The full tier's
-- third_party_agent_users is not shown, as in team_daily. The change against the previous period is not shown, as in
-- agent_periods.
CREATE OR REPLACE TEMP TABLE aggregate_team_periods AS
WITH bounds AS (
    SELECT max(day) AS last_day
    FROM (SELECT day FROM core.daily_totals UNION ALL SELECT day FROM core.user_report_days)
), hidden_days AS (
    SELECT DISTINCT s.scope, s.scope_name, (b.last_day - s.day) // 28 AS period_index, s.team_id
    FROM aggregate_team_day_status AS s, bounds AS b
    WHERE NOT s.shown
), inside_scope AS (
    SELECT DISTINCT t.scope, t.scope_name, t.period_index, t.team_id
    FROM bi.team_usage_periods AS t
    JOIN aggregate_scope_period_status AS r ON r.period_index = t.period_index
    WHERE r.over_k AND t.active_users >= $k
      AND t.user_initiated_interaction_count <= r.s1 AND t.code_generation_activity_count <= r.s2
      AND t.code_acceptance_activity_count <= r.s3
      AND (NOT (t.user_initiated_interaction_count = r.s1 AND t.code_generation_activity_count = r.s2
                AND t.code_acceptance_activity_count = r.s3)
               AND r.fewest - t.active_users < $k
           -- The same sums, but the scope's 28-day count holds a few more (users only its telemetry saw).
           OR r.most - t.active_users BETWEEN 1 AND $k - 1)
), holds_scope AS (
    SELECT DISTINCT t.scope, t.scope_name, t.period_index, t.team_id
    FROM bi.team_usage_periods AS t
    JOIN aggregate_scope_period_status AS r ON r.period_index = t.period_index
    WHERE r.over_k AND t.active_users >= $k
      AND r.s1 <= t.user_initiated_interaction_count AND r.s2 <= t.code_generation_activity_count
      AND r.s3 <= t.code_acceptance_activity_count
      AND (NOT (t.user_initiated_interaction_count = r.s1 AND t.code_generation_activity_count = r.s2
                AND t.code_acceptance_activity_count = r.s3)
               -- The scope's people are at most its 28-day count (unknown: at most anything); its
               -- CLI-only users, whom the count leaves out, are judged day by day (team_daily).
               AND coalesce(t.active_users - r.most < $k, TRUE)
           OR t.active_users - r.most BETWEEN 1 AND $k - 1)
), near_count AS (
    SELECT DISTINCT t.scope, t.scope_name, t.period_index, t.team_id
    FROM bi.team_usage_periods AS t
    JOIN aggregate_scope_period_status AS r ON r.period_index = t.period_index
    WHERE r.over_k AND abs(t.active_users - r.most) BETWEEN 1 AND $k - 1
), counted AS (
    SELECT t.*, t.active_users >= $k AS over_k
    FROM bi.team_usage_periods AS t
), inside_team AS (
    SELECT DISTINCT b.scope, b.scope_name, b.period_index, b.team_id
    FROM counted AS b
    JOIN counted AS a
      ON a.period_index = b.period_index AND a.active_users - b.active_users BETWEEN 1 AND $k - 1
     AND b.user_initiated_interaction_count <= a.user_initiated_interaction_count
     AND b.code_generation_activity_count <= a.code_generation_activity_count
     AND b.code_acceptance_activity_count <= a.code_acceptance_activity_count
     AND b.ai_credits_used <= a.ai_credits_used
    WHERE a.over_k AND b.over_k
), status AS (
    SELECT t.scope, t.scope_name, t.period_index, t.team_id,
           t.active_users >= $k AND h.team_id IS NULL AND i.team_id IS NULL AND n.team_id IS NULL
               AND o.team_id IS NULL AND c.team_id IS NULL AS shown
    FROM bi.team_usage_periods AS t
    LEFT JOIN hidden_days AS h USING (scope, scope_name, period_index, team_id)
    LEFT JOIN inside_scope AS i USING (scope, scope_name, period_index, team_id)
    LEFT JOIN inside_team AS n USING (scope, scope_name, period_index, team_id)
    LEFT JOIN holds_scope AS o USING (scope, scope_name, period_index, team_id)
    LEFT JOIN near_count AS c USING (scope, scope_name, period_index, team_id)
)
SELECT
    t.scope,
    t.scope_name,
    t.period_index,
    t.period_start,
    t.period_end,
    t.team_id,
    t.team_slug,
    NOT s.shown AS suppressed,
    CASE WHEN s.shown THEN t.listed_days END AS listed_days,
    CASE WHEN s.shown THEN t.members END AS members,
    CASE WHEN s.shown THEN t.active_users END AS active_users,
    CASE WHEN s.shown THEN t.user_initiated_interaction_count END AS user_initiated_interaction_count,
    CASE WHEN s.shown THEN t.code_generation_activity_count END AS code_generation_activity_count,
    CASE WHEN s.shown THEN t.code_acceptance_activity_count END AS code_acceptance_activity_count,
    CASE WHEN s.shown THEN t.ai_credits_used END AS ai_credits_used,
    CASE WHEN s.shown THEN t.active_users_per_day END AS active_users_per_day
FROM bi.team_usage_periods AS t
JOIN status AS s USING (scope, scope_name, period_index, team_id)
ORDER BY t.scope, t.scope_name, t.period_index, t.team_id
