-- Two 28-day periods of a metric's daily values (metric_answer, per scope, day and group),
-- called by the page's one change rule (sql/views/_change_rule.sql, loaded as it is): each
-- period's compared days are the scope's final days holding a figure of the metric (of any
-- group); a group missing from one had none that day (0), and a day its row was hidden or holds
-- no figure is not compared for it. Period 1 is $first_start..$first_end, period 2 the second;
-- the change is the second's rate a day against the first's. Identifiers: {groups} the group
-- columns with their labels, {names} the same columns of g, {match} the join on the group.
WITH days AS (
    SELECT DISTINCT a.scope, a.scope_name, a.day,
           CASE WHEN a.day BETWEEN $first_start AND $first_end THEN 1 ELSE 2 END AS period
    FROM metric_answer AS a
    JOIN metrics_calendar AS c USING (scope, scope_name, day)
    WHERE c.is_final AND (a.value IS NOT NULL OR a.suppressed)
      AND (a.day BETWEEN $first_start AND $first_end OR a.day BETWEEN $second_start AND $second_end)
), g AS (
    SELECT scope, scope_name{groups} FROM metric_answer GROUP BY ALL
), cells AS (
    SELECT g.scope, g.scope_name{names}, d.period, CAST(coalesce(a.value, 0) AS DOUBLE) AS value,
           a.day IS NOT NULL AND (a.suppressed OR a.value IS NULL) AS unknown
    FROM g
    LEFT JOIN days AS d ON d.scope = g.scope AND d.scope_name = g.scope_name
    LEFT JOIN metric_answer AS a ON a.scope = g.scope AND a.scope_name = g.scope_name AND a.day = d.day{match}
), stats AS (
    SELECT * EXCLUDE (period, value, unknown),
           coalesce(sum(value) FILTER (WHERE period = 1 AND NOT unknown), 0) AS first_total,
           coalesce(sum(value * value) FILTER (WHERE period = 1 AND NOT unknown), 0) AS first_squares,
           count(*) FILTER (WHERE period = 1 AND NOT unknown) AS first_days,
           coalesce(sum(value) FILTER (WHERE period = 2 AND NOT unknown), 0) AS second_total,
           coalesce(sum(value * value) FILTER (WHERE period = 2 AND NOT unknown), 0) AS second_squares,
           count(*) FILTER (WHERE period = 2 AND NOT unknown) AS second_days,
           count(*) FILTER (WHERE unknown) AS hidden_days
    FROM cells
    GROUP BY ALL
)
SELECT * EXCLUDE (first_squares, second_squares),
       first_total / nullif(first_days, 0) AS first_per_day,
       second_total / nullif(second_days, 0) AS second_per_day,
       bi.change_call(second_total, second_squares, second_days, first_total, first_squares, first_days) AS call,
       bi.change_low(second_total, second_squares, second_days, first_total, first_squares, first_days)
           AS change_low,
       bi.change_high(second_total, second_squares, second_days, first_total, first_squares, first_days)
           AS change_high,
       bi.min_compared_days() AS min_days
FROM stats
ORDER BY ALL
LIMIT $rows
