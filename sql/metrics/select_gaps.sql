-- Every day that was a gap of the answer, of any scope answered.
SELECT DISTINCT day FROM metric_gaps ORDER BY day
