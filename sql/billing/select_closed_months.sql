-- The months of a scope's billing tables (billing.fetches' endpoint) landed with the month
-- closed: never fetched again. A month lands whole in one transaction, so a closed fetch of
-- any of its days says the month is.
SELECT DISTINCT endpoint, CAST(date_trunc('month', day) AS DATE)
  FROM billing.fetches
 WHERE scope = $scope AND scope_name = $scope_name AND status = 'ok' AND month_closed;
