-- Spec 2.1: agent_id is the key and never missing; user-level entries carry no session_count.
SELECT count(*) AS failures,
       string_agg(DISTINCT CASE WHEN agent_id IS NULL THEN 'agent_id missing'
                                ELSE 'session_count at user level' END, ', ') AS detail
FROM core.agent_activity
WHERE agent_id IS NULL OR (level = 'user' AND session_count IS NOT NULL);
