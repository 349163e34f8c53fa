-- The empty kept_days begin_agent_days_refresh.sql made.
DROP TABLE IF EXISTS kept_days
