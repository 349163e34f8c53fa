-- A delivery always names its event kind; repository-scoped kinds name their repository.
-- Only the rows this load inserted ($delivery_ids): a row that landed before this rule was
-- enforced by the loader must not fail every later run.
SELECT count(*) AS failures, string_agg(delivery_id, ', ') AS detail
FROM events.webhook_deliveries
WHERE list_contains(CAST($delivery_ids AS VARCHAR[]), delivery_id)
  AND (event = '' OR (event IN ('push', 'issues', 'pull_request') AND repository_full_name IS NULL));
