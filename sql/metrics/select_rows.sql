-- The answer's rows in order, one more than the row limit (so the reader knows it hit it).
SELECT * FROM metric_answer ORDER BY ALL LIMIT $rows
