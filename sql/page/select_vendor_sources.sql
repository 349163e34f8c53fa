-- Each source's people over $first_day..$last_day, in the page's scope and under scope `vendor`
-- (never another scope: an enterprise and its organizations are never added). Counted rows only
-- (an agent app's row that its vendor's own row holds is not), a person once however many days;
-- mapped: people whose service login the identity map knows. provisional_days: days with a row
-- fetched before it was final.
SELECT source,
       any_value(source_kind) AS source_kind,
       count(DISTINCT person) FILTER (WHERE active) AS active_people,
       count(DISTINCT person) FILTER (WHERE active AND person_kind = 'login') AS mapped_people,
       count(DISTINCT day) AS days,
       count(DISTINCT day) FILTER (WHERE NOT is_final) AS provisional_days
FROM bi.assistant_usage_daily
WHERE ((scope = $scope AND scope_name = $scope_name) OR scope = 'vendor')
  AND day BETWEEN $first_day AND $last_day
  AND counted
GROUP BY source
ORDER BY any_value(source_kind) = 'service' DESC, any_value(source_kind) = 'vendor' DESC, source;
