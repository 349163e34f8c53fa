-- Retention of quarantined lines of user-level reports (they hold a person's line) and of
-- deliveries set aside, over the same days. Both tables are published whole.
DELETE FROM raw.quarantine
 WHERE level <> 'aggregate' AND report_end_day < $cutoff AND (report_end_day >= $since OR fetched_at >= $applied_at);
DELETE FROM events.webhook_quarantine
 WHERE received_at < $cutoff_at AND (received_at >= $since_at OR loaded_at >= $applied_at)
RETURNING 1
