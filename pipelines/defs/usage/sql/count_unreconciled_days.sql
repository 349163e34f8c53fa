-- Final days of the run whose aggregate report and user-level sum (or organization and
-- enterprise) differ by more than bi.reconciliation's tolerance_share (1%) with no known
-- reason: the classes of users the service counts otherwise (telemetry-only, app-only, CLI-only),
-- provisional data, refused lines and erased people are known reasons. A warning, not blocking: the
-- numbers are the service's own, and a person should compare them (bi.reconciliation).
SELECT count(*) AS failures,
       string_agg(scope || ' ' || scope_name || ' ' || day || ' ' || comparison || ' ' || measure || ' '
                  || reported_value || ' vs ' || compared_value, ', ' ORDER BY day) AS detail
FROM bi.reconciliation
WHERE day BETWEEN $start_day AND $end_day AND status = 'unexplained';
