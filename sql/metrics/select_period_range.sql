-- The days the periods of the answer cover.
SELECT min(period_start), max(period_end) FROM metric_answer
