-- A day metric's rows in order, each gap a row of its own with no figure (NULL, never zero), one
-- more than the row limit (so the reader knows it hit it).
SELECT *
FROM (SELECT * FROM metric_answer UNION ALL BY NAME SELECT scope, scope_name, day, FALSE AS suppressed FROM metric_gaps)
ORDER BY ALL
LIMIT $rows
