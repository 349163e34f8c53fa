-- The gaps of a day metric: the scope-days in $first..$last (from each scope's first reported
-- day to the tier's newest) on which its source holds no figure of the scope at all, hidden or
-- shown ({known}: the declaration's test of a figure): no report, or a report without these
-- figures. Read unfiltered: a day an app or a team is missing from while others have figures is
-- no gap (it had none that day).
CREATE OR REPLACE TEMP TABLE metric_gaps AS
WITH scopes AS (
    SELECT scope, scope_name, min(day) AS first_day
    FROM metrics_calendar
    WHERE ($scope IS NULL OR scope = $scope) AND ($scope_name IS NULL OR scope_name = $scope_name)
    GROUP BY ALL
), days AS (
    SELECT s.scope, s.scope_name,
           unnest(generate_series(greatest(s.first_day, $first), least(n.newest, $last), INTERVAL 1 DAY)) AS at
    FROM scopes AS s, (SELECT max(day) AS newest FROM metrics_calendar) AS n
), known AS (
    SELECT scope, scope_name, day
    FROM {source}
    WHERE day BETWEEN $first AND $last
    GROUP BY ALL
    HAVING bool_or(suppressed) OR {known}
)
SELECT d.scope, d.scope_name, CAST(d.at AS DATE) AS day
FROM days AS d
ANTI JOIN known AS k ON k.scope = d.scope AND k.scope_name = d.scope_name AND k.day = CAST(d.at AS DATE)
