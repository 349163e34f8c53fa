-- Open (not cleared) lines of report files that could not be landed, found by fetches since
-- $since (the run's start; the audit passes the earliest time): each needs a look before it
-- is trusted (`metrics-etl quarantine list`). The detail gives each reason up to its first colon
-- (`field user_id`, `malformed JSON`): what follows may quote the line's values, a person's id or
-- login among them, and a check's line names no person (docs/privacy.md).
SELECT count(*) AS failures,
       string_agg(DISTINCT archive_path || ' line ' || line_number || ': ' || split_part(reason, ':', 1), ' | ')
           AS detail
FROM raw.quarantine
WHERE fetched_at >= $since AND cleared_at IS NULL;
