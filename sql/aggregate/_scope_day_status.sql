-- Which scope-days of core.daily_totals the tier shows (aggregate_scope_day_status, read by
-- scope_daily, scope_periods and the team helpers). A day's count is about its active users
-- (daily_active_users, the service's own), its sums about the people whose user lines carry
-- activity (`lines`: core.user_report_days.active_users, NULL when no user-level report landed).
-- The two are not one definition: the service counts users its server-side telemetry alone saw
-- (lines with no activity: in the count, behind no sum) and never CLI-only users (behind sums,
-- not in the count), so each rule below holds for both where the lines are known.
--   1. fewer than $k of them (or 1..$k-1 lines with activity): not shown;
--   2. a day B that could be a part of another shown day A of the same date (each figure of B at
--      most A's: an organization within its enterprise, or one organization's users within
--      another's) whose count of active users, weekly or monthly, or of lines with activity,
--      is 1..$k-1 short of A's: A - B would be those few people's figures, so B is not shown;
--   3. an enterprise whose shown organizations that day leave 1..$k-1 active users (weekly or
--      monthly, or lines with activity) of it uncounted, or an unknown number (their users
--      overlap): enterprise minus organizations would be those few people's figures, so the
--      enterprise's day is not shown; unless enterprise minus them is exactly nothing. Its organizations are those that share
--      users with it that day (core.organization_enterprise_days) and, conservatively, any
--      organization whose enterprise no user-level report told, if it could be a part of it.
CREATE OR REPLACE TEMP TABLE aggregate_scope_day_status AS
WITH days AS (
    SELECT scope, scope_name, day,
           daily_active_users AS dau, weekly_active_users AS wau, monthly_active_users AS mau,
           coalesce(user_initiated_interaction_count, 0) AS s1, coalesce(code_generation_activity_count, 0) AS s2,
           coalesce(code_acceptance_activity_count, 0) AS s3, coalesce(loc_suggested_to_add_sum, 0) AS s4,
           coalesce(loc_added_sum, 0) AS s5, coalesce(loc_deleted_sum, 0) AS s6,
           l.active_users AS lines,
           coalesce(daily_active_users >= $k, FALSE) AND NOT coalesce(l.active_users BETWEEN 1 AND $k - 1, FALSE)
               AS over_k
    FROM core.daily_totals
    LEFT JOIN (SELECT scope, scope_name, day, active_users FROM core.user_report_days) AS l
      USING (scope, scope_name, day)
), inside AS (
    -- B's figures could all be a part of A's.
    SELECT b.scope, b.scope_name, b.day, a.scope AS a_scope, a.scope_name AS a_name,
           a.dau - b.dau AS dau_gap, a.wau - b.wau AS wau_gap, a.mau - b.mau AS mau_gap, a.lines - b.lines AS lines_gap
    FROM days AS b
    JOIN days AS a ON a.day = b.day AND (a.scope <> b.scope OR a.scope_name <> b.scope_name)
    WHERE a.over_k AND b.over_k
      AND b.dau <= a.dau AND b.s1 <= a.s1 AND b.s2 <= a.s2 AND b.s3 <= a.s3 AND b.s4 <= a.s4 AND b.s5 <= a.s5
      AND b.s6 <= a.s6
), part_of_shown AS (
    SELECT DISTINCT scope, scope_name, day
    FROM inside
    WHERE dau_gap BETWEEN 1 AND $k - 1 OR wau_gap BETWEEN 1 AND $k - 1 OR mau_gap BETWEEN 1 AND $k - 1
       OR lines_gap BETWEEN 1 AND $k - 1
), after_pairs AS (
    SELECT d.*, d.over_k AND p.day IS NULL AS shown_so_far
    FROM days AS d
    LEFT JOIN part_of_shown AS p USING (scope, scope_name, day)
), organizations AS (
    -- Each enterprise-day's organizations shown so far.
    SELECT e.scope_name AS enterprise, e.day, o.*
    FROM after_pairs AS e
    JOIN after_pairs AS o ON o.day = e.day AND o.scope = 'organization' AND o.shown_so_far
    WHERE e.scope = 'enterprise' AND e.shown_so_far
      AND (EXISTS (SELECT 1 FROM core.organization_enterprise_days AS r
                   WHERE r.scope_name = o.scope_name AND r.day = o.day AND r.enterprise = e.scope_name)
           OR (NOT EXISTS (SELECT 1 FROM core.organization_enterprise_days AS r
                           WHERE r.scope_name = o.scope_name AND r.day = o.day)
               AND o.dau <= e.dau AND o.s1 <= e.s1 AND o.s2 <= e.s2 AND o.s3 <= e.s3 AND o.s4 <= e.s4
               AND o.s5 <= e.s5 AND o.s6 <= e.s6))
), residuals AS (
    SELECT e.scope_name, e.day,
           e.dau - sum(o.dau) AS dau, e.wau - sum(o.wau) AS wau, e.mau - sum(o.mau) AS mau,
           -- Unknown (NULL) when a user-level report of one of them did not land.
           CASE WHEN count(o.lines) = count(*) THEN e.lines - sum(o.lines) END AS lines,
           e.s1 - sum(o.s1) = 0 AND e.s2 - sum(o.s2) = 0 AND e.s3 - sum(o.s3) = 0 AND e.s4 - sum(o.s4) = 0
               AND e.s5 - sum(o.s5) = 0 AND e.s6 - sum(o.s6) = 0 AS sums_exhausted
    FROM after_pairs AS e
    JOIN organizations AS o ON o.enterprise = e.scope_name AND o.day = e.day
    WHERE e.scope = 'enterprise'
    GROUP BY e.scope_name, e.day, e.dau, e.wau, e.mau, e.lines, e.s1, e.s2, e.s3, e.s4, e.s5, e.s6
), few_left AS (
    SELECT scope_name, day
    FROM residuals
    WHERE NOT (dau >= $k AND coalesce(wau >= $k, TRUE) AND coalesce(mau >= $k, TRUE) AND coalesce(lines >= $k, TRUE))
      AND NOT (sums_exhausted AND dau = 0 AND coalesce(wau = 0, TRUE) AND coalesce(mau = 0, TRUE)
               AND coalesce(lines = 0, TRUE))
)
SELECT a.scope, a.scope_name, a.day, a.dau, a.lines, a.over_k, a.s1, a.s2, a.s3, a.s4, a.s5, a.s6,
       a.shown_so_far AND f.day IS NULL AS shown
FROM after_pairs AS a
LEFT JOIN few_left AS f ON a.scope = 'enterprise' AND f.scope_name = a.scope_name AND f.day = a.day
