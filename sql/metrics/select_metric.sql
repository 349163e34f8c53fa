-- One metric's rows within the days or periods asked ($first..$last of {at}): its measure (the
-- declaration's SQL) over its source's rows per scope, day or period and the dimensions the
-- answer is split by. A group holding a row the tier hid is hidden too (NULL, suppressed), never
-- the sum of what is left. Identifiers come from the declarations (pipelines/metrics/), values
-- are bound: {source} a view of sql/metrics/<group>.sql, {time} its day or period columns, {keys}
-- the dimensions split by (and their labels), {filters} one condition per dimension filtered on.
CREATE OR REPLACE TEMP TABLE metric_answer AS
SELECT scope, scope_name, {time}{keys},
       CASE WHEN bool_or(suppressed) THEN NULL ELSE {measure} END AS value,
       bool_or(suppressed) AS suppressed
FROM {source}
WHERE ($scope IS NULL OR scope = $scope) AND ($scope_name IS NULL OR scope_name = $scope_name)
  AND {at} BETWEEN $first AND $last{filters}
GROUP BY ALL
