-- The connection's own settings that sql/ingest/limit_resources.sql changes, to be set back
-- after the landing (sql/ingest/restore_resources.sql): whoever uses the connection next (the
-- page, the run summary, a test) gets what it had, not the landing's 48 MB.
SELECT current_setting('threads') AS threads,
       current_setting('memory_limit') AS memory_limit,
       current_setting('preserve_insertion_order') AS preserve_insertion_order,
       current_setting('checkpoint_threshold') AS checkpoint_threshold;
