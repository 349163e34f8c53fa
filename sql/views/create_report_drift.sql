-- bi.report_drift
-- Grain: one row per scope, scope_name, report level, day and measure, over every recorded fetch
-- of that day (raw.report_fetches: 1-day and 28-day reports alike, in fetch order).
-- The service finalizes a day within three full UTC days and files exported before then lag, so
-- a day fetched while provisional and again later grows: first_value is what the first recorded
-- fetch carried, last_value what the newest carried (the numbers the other views show), change
-- and change_share (of first_value) how far the day moved. is_final: the newest fetch came after
-- the day was final; provisional_fetches: fetches made before. Measures: the top-level counters,
-- active_users (aggregate: daily_active_users; user level: rows with IDE interactions or code
-- generation, a count kept the same in every fetch to measure how the day moved, not the
-- any-surface count of bi.reconciliation) and agent_job_starts (NULL in a fetch whose records carried no agent array).
CREATE OR REPLACE VIEW bi.report_drift AS
-- One row per fetch and measure, NULLs left out, as UNPIVOT gives them. Not UNPIVOT itself:
-- DuckDB 2.x stores an UNPIVOT view as SQL that DuckDB 1.5.0 cannot bind, and BI tools embed 1.x.
WITH measured AS (
    SELECT * FROM (
        SELECT scope, scope_name, level, day, fetched_at, is_final, report_kind,
               unnest([
                   struct_pack(measure := 'user_initiated_interaction_count', value := user_initiated_interaction_count),
                   struct_pack(measure := 'code_generation_activity_count', value := code_generation_activity_count),
                   struct_pack(measure := 'code_acceptance_activity_count', value := code_acceptance_activity_count),
                   struct_pack(measure := 'loc_suggested_to_add_sum', value := loc_suggested_to_add_sum),
                   struct_pack(measure := 'loc_suggested_to_delete_sum', value := loc_suggested_to_delete_sum),
                   struct_pack(measure := 'loc_added_sum', value := loc_added_sum),
                   struct_pack(measure := 'loc_deleted_sum', value := loc_deleted_sum),
                   struct_pack(measure := 'active_users', value := active_users),
                   struct_pack(measure := 'agent_job_starts', value := agent_job_starts)
               ], recursive := true)
        FROM raw.report_fetches
    )
    WHERE value IS NOT NULL
), fetches AS (
    SELECT scope, scope_name, level, day,
           count(*) AS fetches,
           count(*) FILTER (WHERE NOT is_final) AS provisional_fetches,
           min(fetched_at) AS first_fetched_at,
           max(fetched_at) AS last_fetched_at,
           arg_max(is_final, fetched_at) AS is_final
    FROM raw.report_fetches
    GROUP BY ALL
), drift AS (
    SELECT scope, scope_name, level, day, measure,
           arg_min(value, fetched_at) AS first_value,
           arg_max(value, fetched_at) AS last_value,
           min(value) AS min_value,
           max(value) AS max_value
    FROM measured
    GROUP BY ALL
)
SELECT
    d.scope,
    d.scope_name,
    d.level,
    d.day,
    d.measure,
    f.is_final,
    f.fetches,
    f.provisional_fetches,
    f.first_fetched_at,
    f.last_fetched_at,
    d.first_value,
    d.last_value,
    d.min_value,
    d.max_value,
    d.last_value - d.first_value AS change,
    CASE WHEN d.first_value > 0 THEN (d.last_value - d.first_value) / d.first_value END AS change_share
FROM drift AS d
JOIN fetches AS f USING (scope, scope_name, level, day);

COMMENT ON VIEW bi.report_drift IS 'One row per scope, level, day and measure over every recorded fetch of the day: what the first and the newest fetch carried, and how far the day moved (provisional days grow until final, three full UTC days after).';
