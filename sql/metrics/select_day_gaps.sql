-- The gaps of a day metric: the scope-days in $first..$last within the tier's history (its first
-- reported day of any scope to its newest: a scope that began reporting later has gaps before
-- its first report) on which its source holds no figure of the scope at all, hidden or shown
-- ({known}: the declaration's test of a figure): no report, or a report without these figures.
-- The days before the tier's history are no gaps of it: the answer's freshness names its first. Read unfiltered: a day an app or a team is missing from while others have figures is
-- no gap (it had none that day).
CREATE OR REPLACE TEMP TABLE metric_gaps AS
WITH scopes AS (
    SELECT DISTINCT scope, scope_name
    FROM metrics_calendar
    WHERE ($scope IS NULL OR scope = $scope) AND ($scope_name IS NULL OR scope_name = $scope_name)
), days AS (
    SELECT s.scope, s.scope_name, unnest(generate_series(greatest(n.oldest, $first), least(n.newest, $last), INTERVAL 1 DAY)) AS at
    FROM scopes AS s, (SELECT min(day) AS oldest, max(day) AS newest FROM metrics_calendar) AS n
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
