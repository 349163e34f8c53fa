-- Each source's cost by kind over $first_day..$last_day: the page's scope (its bill, never added to
-- another scope's) and scope `vendor` (people no scope has, the unmapped among them). unmapped: the
-- part of people the identity map does not know (an email or an API key). Cursor's rows hold the
-- spend since the previous read: covers_from may be before $first_day.
SELECT source,
       cost_kind,
       bool_and(billed) AS billed,
       CAST(sum(amount_usd) AS DECIMAL(38, 8)) AS amount_usd,
       CAST(sum(gross_usd) AS DECIMAL(38, 8)) AS gross_usd,
       CAST(coalesce(sum(amount_usd) FILTER (WHERE person_kind IN ('email', 'api_key')), 0) AS DECIMAL(38, 8))
           AS unmapped_usd,
       min(covers_from) AS covers_from,
       max(day) AS last_day,
       count(DISTINCT day) FILTER (WHERE NOT is_final) AS provisional_days
FROM bi.assistant_cost_daily
WHERE ((scope = $scope AND scope_name = $scope_name) OR scope = 'vendor')
  AND day BETWEEN $first_day AND $last_day
GROUP BY source, cost_kind
ORDER BY source = 'service' DESC, source, cost_kind;
