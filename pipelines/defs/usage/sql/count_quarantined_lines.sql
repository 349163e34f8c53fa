-- Open (not cleared) lines of report files that could not be landed, found by fetches since
-- $since (the run's start; the audit passes the earliest time): each needs a look before it
-- is trusted (`metrics-etl quarantine list`).
SELECT count(*) AS failures,
       string_agg(DISTINCT archive_path || ' line ' || line_number || ': ' || reason, ' | ') AS detail
FROM raw.quarantine
WHERE fetched_at >= $since AND cleared_at IS NULL;
