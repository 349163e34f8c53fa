-- Days whose aggregate report carried no totals_by_3rd_party_agent: "no recognized agent
-- activity", shown as a gap in the views, never as 0. A warning, since it can be genuine.
-- Over the run's days (or, in the audit, the whole history).
SELECT count(*) AS failures, string_agg(scope_name || ' ' || day, ', ' ORDER BY day) AS detail
FROM core.daily_totals
WHERE day BETWEEN $start_day AND $end_day AND NOT agent_breakdown_present;
