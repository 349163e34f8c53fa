-- A day's repositories (repos-1-day) hold no more pull requests than their scope's aggregate
-- record of the day: each is a repository of the scope, so their sums are at most the scope's.
-- Fewer is expected (a repository deleted or transferred, a pull request of an inactive
-- repository), so only more is counted, per day and measure, naming the difference. A warning:
-- the service says small differences between its reports are expected.
-- Over a slice: one report's scope and days inside its transaction, or (a NULL scope and the
-- widest days) the whole history in the audit.
WITH repositories AS (
    SELECT scope, scope_name, day,
           sum(pull_requests_total_created) AS created,
           sum(pull_requests_total_reviewed) AS reviewed,
           sum(pull_requests_total_merged) AS merged
      FROM core.repository_days
     WHERE day BETWEEN $start_day AND $end_day AND ($scope IS NULL OR (scope = $scope AND scope_name = $scope_name))
     GROUP BY ALL
), measures AS (
    SELECT r.scope_name, r.day, m.measure, m.repositories, m.aggregate
      FROM repositories AS r
      JOIN core.daily_totals AS a USING (scope, scope_name, day)
     CROSS JOIN (VALUES ('created', r.created, a.pull_requests_total_created),
                        ('reviewed', r.reviewed, a.pull_requests_total_reviewed),
                        ('merged', r.merged, a.pull_requests_total_merged)) AS m(measure, repositories, aggregate)
)
SELECT count(*) AS failures,
       string_agg(concat_ws(' ', scope_name, day, measure, repositories - aggregate, 'more in repositories than',
                            aggregate), ', ' ORDER BY day, measure) AS detail
  FROM measures
 WHERE repositories > aggregate;
