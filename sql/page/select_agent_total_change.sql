-- The headline tile's change: every third-party agent app's job starts of one scope together,
-- per compared day (a final day whose report carried the agent array), the last 28 days against
-- the 28 before, called by the one change rule (sql/views/_change_rule.sql) as each app's row of
-- bi.agent_usage_periods is, so the tile never calls a change the rule would not.
WITH periods AS (
    SELECT DISTINCT period_index, period_start, period_end
    FROM bi.agent_usage_periods
    WHERE scope = $scope AND scope_name = $scope_name AND period_index <= 1
), daily AS (
    SELECT p.period_index, c.agent_job_starts AS starts
    FROM bi.report_coverage AS c
    JOIN periods AS p ON c.day BETWEEN p.period_start AND p.period_end
    WHERE c.scope = $scope AND c.scope_name = $scope_name AND c.status = 'agents reported' AND c.is_final
), sums AS (
    SELECT period_index, sum(starts) AS total, sum(starts * starts) AS squares, count(*) AS days
    FROM daily
    GROUP BY ALL
)
SELECT cur.total / cur.days AS per_day, prev.total / prev.days AS previous_per_day,
       coalesce(cur.days, 0) AS compared_days, prev.days AS previous_compared_days,
       bi.change_call(cur.total, cur.squares, cur.days, prev.total, prev.squares, prev.days) AS change,
       bi.change_low(cur.total, cur.squares, cur.days, prev.total, prev.squares, prev.days) AS change_low,
       bi.change_high(cur.total, cur.squares, cur.days, prev.total, prev.squares, prev.days) AS change_high
FROM (SELECT 1) AS one
LEFT JOIN sums AS cur ON cur.period_index = 0
LEFT JOIN sums AS prev ON prev.period_index = 1;
