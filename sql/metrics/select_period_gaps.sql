-- The gaps of a period metric: the days of each period answered (from its scope's first reported
-- day) whose report did not land, so the period's figure does not cover them.
CREATE OR REPLACE TEMP TABLE metric_gaps AS
WITH periods AS (
    SELECT DISTINCT a.scope, a.scope_name, greatest(a.period_start, f.first_day) AS first_day, a.period_end
    FROM metric_answer AS a
    JOIN (SELECT scope, scope_name, min(day) AS first_day FROM metrics_calendar GROUP BY ALL) AS f
      USING (scope, scope_name)
), days AS (
    SELECT scope, scope_name, unnest(generate_series(first_day, period_end, INTERVAL 1 DAY)) AS at
    FROM periods
)
SELECT DISTINCT d.scope, d.scope_name, CAST(d.at AS DATE) AS day
FROM days AS d
ANTI JOIN metrics_calendar AS c ON c.scope = d.scope AND c.scope_name = d.scope_name AND c.day = CAST(d.at AS DATE)
