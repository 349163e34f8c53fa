-- A delivery always names its event kind; repository-scoped kinds name their repository.
SELECT count(*) AS failures, string_agg(delivery_id, ', ') AS detail
FROM events.webhook_deliveries
WHERE event = '' OR (event IN ('push', 'issues', 'pull_request') AND repository_full_name IS NULL);
