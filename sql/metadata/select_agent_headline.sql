-- The run summary's headline: the agent job starts of the widest scope (as the page's) over the
-- last 28 days and the 28 before, with the per-day rate over final days that carried agent data
-- (the basis bi.agent_usage_periods compares on), and the change the rule calls between them;
-- landed_days: the days of the last 28 with the scope's report (fewer after a first run).
-- Reads 56 days of core.daily_totals and core.agent_days (a few rows a day), so it costs the
-- same after years.
WITH main AS (
    SELECT scope, scope_name FROM (SELECT DISTINCT scope, scope_name FROM core.daily_totals)
    ORDER BY scope = 'enterprise' DESC, scope_name LIMIT 1
), bounds AS (
    SELECT max(day) AS last_day FROM core.daily_totals
), days AS (
    SELECT t.day, (b.last_day - t.day) // 28 AS period_index,
           bool_or(t.agent_breakdown_present) AS carried, bool_and(coalesce(t.is_final, TRUE)) AS final
    FROM core.daily_totals AS t, main AS m, bounds AS b
    WHERE t.scope = m.scope AND t.scope_name = m.scope_name AND t.day > b.last_day - 56
    GROUP BY ALL
), starts AS (
    SELECT a.day, sum(a.agent_job_starts) AS job_starts
    FROM core.agent_days AS a, main AS m, bounds AS b
    WHERE a.level = 'aggregate' AND a.scope = m.scope AND a.scope_name = m.scope_name AND a.day > b.last_day - 56
    GROUP BY ALL
), periods AS (
    SELECT m.scope || ' ' || m.scope_name AS scope_label, d.period_index,
           b.last_day - CAST(28 * d.period_index + 27 AS INTEGER) AS period_start,
           b.last_day - CAST(28 * d.period_index AS INTEGER) AS period_end,
           count(*) AS landed_days,
           count(*) FILTER (WHERE NOT d.final) AS provisional_days,
           count(*) FILTER (WHERE d.carried AND d.final) AS compared_days,
           CAST(coalesce(sum(s.job_starts), 0) AS BIGINT) AS job_starts,
           CAST(coalesce(sum(s.job_starts) FILTER (WHERE d.final), 0) AS BIGINT) AS compared_job_starts,
           coalesce(sum(s.job_starts * s.job_starts) FILTER (WHERE d.final), 0) AS squares
    FROM days AS d
    LEFT JOIN starts AS s USING (day)
    CROSS JOIN main AS m
    CROSS JOIN bounds AS b
    GROUP BY ALL
)
-- The last 28 days against the 28 before, called by the one change rule (_change_rule.sql).
SELECT p.scope_label, p.period_start, p.period_end, p.provisional_days, p.compared_days, p.job_starts,
       p.compared_job_starts, prev.compared_days AS previous_compared_days,
       prev.compared_job_starts AS previous_compared_job_starts, bi.min_compared_days() AS min_compared_days,
       bi.change_call(p.compared_job_starts, p.squares, p.compared_days,
                      prev.compared_job_starts, prev.squares, prev.compared_days) AS change,
       bi.change_low(p.compared_job_starts, p.squares, p.compared_days,
                     prev.compared_job_starts, prev.squares, prev.compared_days) AS change_low,
       bi.change_high(p.compared_job_starts, p.squares, p.compared_days,
                      prev.compared_job_starts, prev.squares, prev.compared_days) AS change_high,
       p.landed_days
FROM periods AS p
LEFT JOIN periods AS prev ON prev.period_index = 1
WHERE p.period_index = 0;
