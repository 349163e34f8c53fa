-- Every user id with rows: the pseudonyms are computed in Python for these (the key stays there).
SELECT DISTINCT user_id FROM core.user_daily_totals WHERE user_id IS NOT NULL
