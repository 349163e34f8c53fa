-- The months of a scope's billing tables (billing.fetches' endpoint) landed closed: never
-- fetched again. A month is closed for a table only when every day it fetched of it has a fetch
-- made after the month closed: a month closing between two calls of one run has its first days'
-- amounts provisional, so it is fetched again. A later landing replaces every day of the month,
-- so the rows held were fetched no earlier than that closed fetch: final.
SELECT endpoint, month
  FROM (SELECT endpoint, CAST(date_trunc('month', day) AS DATE) AS month, day, bool_or(month_closed) AS closed
          FROM billing.fetches
         WHERE scope = $scope AND scope_name = $scope_name AND status = 'ok'
         GROUP BY ALL)
 GROUP BY endpoint, month
HAVING bool_and(closed);
