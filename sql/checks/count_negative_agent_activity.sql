SELECT count(*) AS failures, string_agg(DISTINCT scope_name || ' ' || day || ' ' || agent_id, ', ') AS detail
FROM core.agent_activity
WHERE agent_job_starts < 0 OR session_count < 0;
