-- The user ids of the days to write: their pseudonyms are computed in Python (the key stays there).
SELECT DISTINCT user_id FROM core.user_daily_totals WHERE day IN (SELECT unnest($days)) AND user_id IS NOT NULL
