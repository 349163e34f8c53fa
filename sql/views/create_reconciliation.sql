-- bi.reconciliation
-- Grain: one row per scope, scope_name, day, comparison and measure. Two comparisons:
--   'aggregate vs users': the aggregate report (core.daily_totals) against the sum of the
--     same day's user-level records (core.user_daily_totals, summed per day in the rollup
--     core.user_report_days) for the counters that should agree, agent job starts at each level
--     (core.agent_activity, per day in core.agent_days), and the service's daily_active_users
--     (the measure active_users) against the user lines active on any documented surface
--     (core.user_report_days.any_surface_active_users, sql/rollups/_active_rule.sql).
--   'enterprise vs organization': an organization's aggregate report against that of its
--     enterprise (the enterprise whose user-level report lists the organization's users on the
--     organization's newest user day, kept per day in the rollup core.organization_enterprise_days,
--     or the only enterprise in the warehouse).
-- reported: the aggregate (or enterprise) value, compared: the user sum (or organization's),
-- difference = reported - compared, difference_share = difference / reported.
-- status: 'agrees', 'explained' (reason says why it may differ), 'unexplained' (a final day
-- differing by more than tolerance_share, 1%: the warning check reconciliation_holds counts
-- these), or 'not comparable' (one side has no report, or no agent array that day).
-- Reasons the public service documents: a day finalizes within three full UTC days and files
-- exported earlier lag, so reports fetched at different times differ until the day is final;
-- lines refused at ingest (raw.quarantine) are missing from the user sum; people erased by
-- `metrics-etl forget` (core.erased_user_days: how many, never whom) are missing from it too, as
-- the aggregate report, which the service computes, still counts them; small differences
-- between the aggregate and user-level reports are expected, an enterprise counts all of its
-- organizations. Users with IDE telemetry off are missing from every report alike: no difference.
-- Active users: the service's daily_active_users counts users active in an IDE, since
-- telemetry_counted_from (2026-06-15) users its server-side telemetry alone confirmed (their
-- lines come with no activity and empty breakdowns, so only the count tells them from inactive
-- ones: up to the day's inactive lines), since app_counted_from (2026-07-28) users active only in
-- the desktop app; never users active only in the CLI (daily_active_cli_users is no part of it)
-- nor only on the cloud agent, VS Code agents, a code review or a third-party agent. Each such
-- class of user lines (core.user_report_days) is a known part of the difference, counted in its
-- column; residual_difference is what they leave, and only it is judged.
CREATE OR REPLACE VIEW bi.reconciliation AS
WITH settings AS (
    -- The days the service's daily_active_users began counting each class (its changelog).
    SELECT CAST(0.01 AS DOUBLE) AS tolerance_share, DATE '2026-06-15' AS telemetry_counted_from,
           DATE '2026-07-28' AS app_counted_from
), aggregate_days AS (
    SELECT scope, scope_name, day, is_final, fetched_at, agent_breakdown_present,
           user_initiated_interaction_count, code_generation_activity_count, code_acceptance_activity_count,
           loc_suggested_to_add_sum, loc_suggested_to_delete_sum, loc_added_sum, loc_deleted_sum,
           daily_active_users AS active_users
    FROM core.daily_totals
), user_days AS (
    SELECT scope, scope_name, day, is_final, fetched_at, agent_breakdown_present,
           user_initiated_interaction_count, code_generation_activity_count, code_acceptance_activity_count,
           loc_suggested_to_add_sum, loc_suggested_to_delete_sum, loc_added_sum, loc_deleted_sum,
           any_surface_active_users AS active_users, app_only_users, cli_only_users, other_surface_only_users,
           inactive_users
    FROM core.user_report_days
), agent_sums AS (
    SELECT scope, scope_name, level, day, CAST(sum(agent_job_starts) AS BIGINT) AS agent_job_starts
    FROM core.agent_days
    GROUP BY ALL
), quarantined AS (
    -- A refused user line's day: its own "day" field when readable, else its 1-day report's day.
    SELECT scope, scope_name, day, count(*) AS lines
    FROM (SELECT scope, scope_name,
                 coalesce(CASE WHEN json_valid(line_text) THEN TRY_CAST(line_text ->> '$.day' AS DATE) END,
                          CASE WHEN report_start_day = report_end_day THEN report_start_day END) AS day
          FROM raw.quarantine
          WHERE level = 'user')
    WHERE day IS NOT NULL
    GROUP BY ALL
), sides AS (
    SELECT a.scope, a.scope_name, a.day, a.is_final AS reported_final, a.fetched_at AS reported_fetched_at,
           u.is_final AS compared_final, u.fetched_at AS compared_fetched_at, u.day IS NOT NULL AS compared_present,
           a.agent_breakdown_present AND coalesce(u.agent_breakdown_present, FALSE) AS both_arrays,
           -- The measures in the order of `measures` below, as lists: one row each further down.
           [a.user_initiated_interaction_count, a.code_generation_activity_count, a.code_acceptance_activity_count,
            a.loc_suggested_to_add_sum, a.loc_suggested_to_delete_sum, a.loc_added_sum, a.loc_deleted_sum,
            a.active_users, ja.agent_job_starts] AS reported,
           [u.user_initiated_interaction_count, u.code_generation_activity_count, u.code_acceptance_activity_count,
            u.loc_suggested_to_add_sum, u.loc_suggested_to_delete_sum, u.loc_added_sum, u.loc_deleted_sum,
            u.active_users, ju.agent_job_starts] AS compared,
           struct_pack(app_only := u.app_only_users, cli_only := u.cli_only_users,
                       other_surface_only := u.other_surface_only_users, inactive := u.inactive_users) AS classes
    FROM aggregate_days AS a
    LEFT JOIN user_days AS u USING (scope, scope_name, day)
    LEFT JOIN agent_sums AS ja ON ja.level = 'aggregate' AND ja.scope = a.scope AND ja.scope_name = a.scope_name
                              AND ja.day = a.day
    LEFT JOIN agent_sums AS ju ON ju.level = 'user' AND ju.scope = a.scope AND ju.scope_name = a.scope_name
                              AND ju.day = a.day
), newest_user_day AS (
    SELECT scope_name, max(day) AS day FROM core.user_report_days WHERE scope = 'organization' GROUP BY ALL
), membership AS (
    -- The enterprise of an organization: the one whose user report shares users with the
    -- organization's on the organization's newest user day (the rollup
    -- core.organization_enterprise_days: a few rows a day, whatever the users).
    SELECT DISTINCT m.scope_name AS organization, m.enterprise
    FROM core.organization_enterprise_days AS m
    JOIN newest_user_day AS n ON n.scope_name = m.scope_name AND n.day = m.day
    UNION
    -- Without user-level data, the only enterprise there is.
    SELECT o.scope_name, e.scope_name
    FROM (SELECT DISTINCT scope_name FROM core.daily_totals WHERE scope = 'organization') AS o,
         (SELECT DISTINCT scope_name FROM core.daily_totals WHERE scope = 'enterprise') AS e
    WHERE (SELECT count(DISTINCT scope_name) FROM core.daily_totals WHERE scope = 'enterprise') = 1
), enterprise_sides AS (
    SELECT e.scope, e.scope_name, e.day, e.reported_final, e.reported_fetched_at,
           o.reported_final AS compared_final, o.reported_fetched_at AS compared_fetched_at,
           TRUE AS compared_present,
           e.reported[9] IS NOT NULL AND o.reported[9] IS NOT NULL AS both_arrays,  -- agent job starts
           e.reported, o.reported AS compared, o.scope_name AS organization
    FROM sides AS e
    JOIN membership AS m ON m.enterprise = e.scope_name
    JOIN sides AS o ON o.scope = 'organization' AND o.scope_name = m.organization AND o.day = e.day
    WHERE e.scope = 'enterprise'
), paired AS (
    SELECT 'aggregate vs users' AS comparison, scope, scope_name, NULL AS organization, day,
           reported_final, reported_fetched_at, compared_final, compared_fetched_at, compared_present,
           both_arrays, reported, compared, classes
    FROM sides
    UNION ALL
    SELECT 'enterprise vs organization', scope, scope_name, organization, day,
           reported_final, reported_fetched_at, compared_final, compared_fetched_at, compared_present,
           both_arrays, reported, compared, NULL
    FROM enterprise_sides
), measured AS (
    -- A join, not an unnest in the select list: a filter on day reaches the base tables.
    SELECT p.* EXCLUDE (reported, compared, classes), m.measure,
           CASE WHEN m.measure = 'active_users' THEN p.classes END AS classes,
           p.reported[m.position] AS reported_value,
           p.compared[m.position] AS compared_value
    FROM paired AS p
    CROSS JOIN (VALUES (1, 'user_initiated_interaction_count'), (2, 'code_generation_activity_count'),
                       (3, 'code_acceptance_activity_count'), (4, 'loc_suggested_to_add_sum'),
                       (5, 'loc_suggested_to_delete_sum'), (6, 'loc_added_sum'), (7, 'loc_deleted_sum'),
                       (8, 'active_users'), (9, 'agent_job_starts')) AS m(position, measure)
), classified AS (
    -- The classes of user lines one side counts and the other does not (settings' dates).
    SELECT m.*,
           CASE WHEN m.day >= s.app_counted_from THEN 0 ELSE m.classes.app_only END AS app_only_users,
           m.classes.cli_only AS cli_only_users,
           m.classes.other_surface_only AS other_surface_only_users,
           CASE WHEN m.day >= s.telemetry_counted_from THEN m.classes.inactive ELSE 0 END AS telemetry_candidates,
           m.reported_value - m.compared_value
           + coalesce(CASE WHEN m.day >= s.app_counted_from THEN 0 ELSE m.classes.app_only END
                      + m.classes.cli_only + m.classes.other_surface_only, 0)
               AS known_left
    FROM measured AS m
    CROSS JOIN settings AS s
), erased AS (
    -- Active users: people erased from the day's user lines are known exactly, so they are
    -- counted before the telemetry-only users, who are only what is left.
    SELECT m.*, coalesce(e.people_erased, 0) AS erased_people,
           CASE WHEN m.classes IS NOT NULL AND m.known_left > 0
                THEN least(m.known_left, coalesce(e.people_erased, 0)) ELSE 0 END AS erased_users
    FROM classified AS m
    LEFT JOIN core.erased_user_days AS e
      ON m.comparison = 'aggregate vs users' AND e.scope = m.scope AND e.scope_name = m.scope_name AND e.day = m.day
), judged AS (
    SELECT m.* EXCLUDE (known_left, telemetry_candidates),
           m.reported_value - m.compared_value AS difference,
           -- Users the service confirmed by its telemetry alone: what is left, up to the inactive lines.
           CASE WHEN m.classes IS NOT NULL THEN
               CASE WHEN m.known_left - m.erased_users > 0
                    THEN least(m.known_left - m.erased_users, m.telemetry_candidates) ELSE 0 END END
               AS telemetry_only_users,
           m.known_left - m.erased_users
           - CASE WHEN m.classes IS NOT NULL AND m.known_left - m.erased_users > 0
                  THEN least(m.known_left - m.erased_users, m.telemetry_candidates) ELSE 0 END AS residual_difference,
           CASE WHEN m.reported_value > 0
                THEN (m.reported_value - m.compared_value) / m.reported_value END AS difference_share,
           coalesce(m.reported_final, FALSE) AND coalesce(m.compared_final, FALSE) AS is_final,
           coalesce(q.lines, 0) AS quarantined_user_lines,
           s.tolerance_share
    FROM erased AS m
    CROSS JOIN settings AS s
    LEFT JOIN quarantined AS q
      ON m.comparison = 'aggregate vs users' AND q.scope = m.scope AND q.scope_name = m.scope_name AND q.day = m.day
)
SELECT
    scope,
    scope_name,
    day,
    comparison,
    organization,
    measure,
    is_final,
    reported_value,
    compared_value,
    difference,
    difference_share,
    tolerance_share,
    telemetry_only_users,
    app_only_users,
    cli_only_users,
    other_surface_only_users,
    residual_difference,
    CASE
        WHEN NOT compared_present OR (measure = 'agent_job_starts' AND NOT both_arrays)
             OR reported_value IS NULL OR compared_value IS NULL THEN 'not comparable'
        WHEN difference = 0 THEN 'agrees'
        WHEN residual_difference = 0 THEN 'explained'
        WHEN comparison = 'enterprise vs organization' AND difference > 0 THEN 'explained'
        WHEN NOT is_final THEN 'explained'
        WHEN comparison = 'aggregate vs users' AND quarantined_user_lines > 0 AND residual_difference > 0 THEN 'explained'
        WHEN comparison = 'aggregate vs users' AND erased_people > erased_users AND residual_difference > 0
            THEN 'explained'
        WHEN abs(residual_difference) <= tolerance_share * reported_value THEN 'explained'
        ELSE 'unexplained'
    END AS status,
    CASE
        WHEN NOT compared_present THEN 'no user-level report landed for this day'
        WHEN measure = 'agent_job_starts' AND NOT both_arrays
            THEN 'a report of this day carried no agent array: a gap, not zero, so nothing to compare'
        WHEN reported_value IS NULL OR compared_value IS NULL THEN 'the measure is missing from one of the reports'
        -- Equal figures name no reason unless known classes cancel out (CLI-only users the
        -- service leaves out against as many it counts from its telemetry alone): then they are named.
        WHEN difference = 0 AND coalesce(telemetry_only_users, 0) + coalesce(app_only_users, 0)
             + coalesce(cli_only_users, 0) + coalesce(other_surface_only_users, 0) + erased_users = 0 THEN NULL
        ELSE concat_ws('. ',
            -- The known classes of user lines first, each with its count, then why what is left differs.
            CASE WHEN telemetry_only_users > 0 THEN telemetry_only_users || ' user(s) the service counts from its '
                 || 'server-side telemetry alone (their user lines show no activity and empty breakdowns)' END,
            CASE WHEN app_only_users > 0 THEN app_only_users || ' user(s) active only in the desktop app, which the '
                 || 'service''s daily_active_users counts only since 2026-07-28' END,
            CASE WHEN cli_only_users > 0 THEN cli_only_users || ' user(s) active only in the CLI, which the '
                 || 'service''s daily_active_users does not count (daily_active_cli_users does)' END,
            CASE WHEN erased_users > 0 THEN erased_users || ' person(s) erased from this day''s user rows (metrics-etl '
                 || 'forget): the aggregate report still counts them' END,
            CASE WHEN other_surface_only_users > 0 THEN other_surface_only_users || ' user(s) active only on the '
                 || 'cloud agent, VS Code agents, a code review or a third-party agent, outside the service''s '
                 || 'IDE-based daily_active_users' END,
            CASE
                WHEN residual_difference = 0 THEN NULL
                WHEN comparison = 'enterprise vs organization' AND difference > 0
                    THEN 'the enterprise also counts its other organizations, so it is at least the organization'
                WHEN NOT is_final
                    THEN 'provisional: the day was not final (three full UTC days old) when '
                         || CASE WHEN NOT coalesce(reported_final, FALSE) AND NOT coalesce(compared_final, FALSE)
                                 THEN 'either report was fetched'
                                 WHEN NOT coalesce(reported_final, FALSE)
                                     THEN 'the ' || split_part(comparison, ' vs ', 1) || ' report was fetched'
                                 ELSE 'the ' || split_part(comparison, ' vs ', 2) || ' report was fetched' END
                         || ', and files exported before a day is final lag: reports fetched at different times differ'
                WHEN comparison = 'aggregate vs users' AND quarantined_user_lines > 0 AND residual_difference > 0
                    THEN quarantined_user_lines || ' user-level line(s) of this day were refused at ingest '
                         || '(metrics-etl quarantine list): their users are missing from the user sum'
                WHEN comparison = 'aggregate vs users' AND erased_people > erased_users AND residual_difference > 0
                    THEN erased_people || ' person(s) erased from this day''s user rows (metrics-etl forget): '
                         || 'the aggregate report still counts them'
                WHEN abs(residual_difference) <= tolerance_share * reported_value
                    THEN 'within ' || CAST(round(tolerance_share * 100) AS INTEGER) || '%: the service documents small '
                         || 'differences between its aggregate and user-level reports'
                WHEN comparison = 'enterprise vs organization'
                    THEN 'unexplained: the organization exceeds its enterprise on a final day'
                ELSE 'unexplained: a final day differs by ' || residual_difference || ' beyond the known classes, '
                     || 'more than ' || CAST(round(tolerance_share * 100) AS INTEGER) || '%, not explained by provisional '
                     || 'data, refused lines or erased people: compare its fetches in bi.report_drift'
            END)
    END AS reason
FROM judged;

COMMENT ON VIEW bi.reconciliation IS 'One row per scope, day, comparison (aggregate vs users, enterprise vs organization) and measure: both values, the difference and its share, the known classes of users one side counts and the other does not (active users: telemetry-only, app-only, CLI-only, other surfaces only), what they leave (residual_difference), and why they may differ (status agrees, explained, unexplained or not comparable).';
