-- People active on more than one source over $first_day..$last_day (the page's scope and scope
-- `vendor`, counted rows): one person is one `person`, however many days and scopes.
WITH people AS (
    SELECT person,
           bool_or(source_kind = 'service') AS service,
           count(DISTINCT source) FILTER (WHERE source_kind = 'vendor') AS vendors
    FROM bi.assistant_usage_daily
    WHERE ((scope = $scope AND scope_name = $scope_name) OR scope = 'vendor')
      AND day BETWEEN $first_day AND $last_day
      AND counted AND active
    GROUP BY person
)
SELECT count(*) FILTER (WHERE service AND vendors >= 1) AS service_and_vendor,
       count(*) FILTER (WHERE vendors >= 2) AS two_vendors
FROM people;
