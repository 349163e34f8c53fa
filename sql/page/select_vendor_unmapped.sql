-- Per vendor, its people no service login is known for: over $first_day..$last_day from the usage
-- rows (they are all under scope `vendor`), and over every day landed from
-- bi.assistant_unmapped_people. Counts only: no email leaves the warehouse here.
WITH recent AS (
    SELECT vendor,
           count(DISTINCT person) FILTER (WHERE person_kind = 'email') AS people,
           count(DISTINCT person) FILTER (WHERE person_kind = 'api_key') AS api_keys
    FROM bi.assistant_usage_daily
    WHERE source_kind = 'vendor'
      AND ((scope = $scope AND scope_name = $scope_name) OR scope = 'vendor')
      AND day BETWEEN $first_day AND $last_day
    GROUP BY vendor
)
SELECT vendor,
       coalesce(r.people, 0) AS people,
       coalesce(r.api_keys, 0) AS api_keys,
       coalesce(u.people, 0) AS people_ever,
       u.first_day,
       u.last_day
FROM recent AS r
FULL JOIN bi.assistant_unmapped_people AS u USING (vendor)
ORDER BY vendor;
