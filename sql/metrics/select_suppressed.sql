-- The groups of the answer the tier hid under k (a scope, a day or period, an app, a team: the
-- tier names no person), and how many.
SELECT * EXCLUDE (value, suppressed), count(*) OVER () AS hidden
FROM metric_answer
WHERE suppressed
ORDER BY ALL
LIMIT $rows
