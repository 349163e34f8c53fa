-- Billing a scope's token could not read: the endpoints whose newest fetch the service refused
-- (billing.fetches.status 'denied', a 403), per scope, with when it was last refused and what
-- the service said then.
WITH newest AS (
    SELECT scope, scope_name, endpoint, arg_max(status, fetched_at) AS status, arg_max(message, fetched_at) AS message,
           max(fetched_at) AS fetched_at
    FROM billing.fetches
    GROUP BY ALL
)
SELECT scope, scope_name, string_agg(endpoint, ', ' ORDER BY endpoint) AS endpoints, max(fetched_at) AS fetched_at,
       arg_max(message, fetched_at) AS message
FROM newest
WHERE status = 'denied'
GROUP BY scope, scope_name
ORDER BY scope = 'enterprise' DESC, scope_name;
