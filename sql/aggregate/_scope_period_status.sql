-- Which scope periods the tier shows (aggregate_scope_period_status, read by scope_periods and
-- team periods). A period's sums are about the people active on its reported days: at least its
-- 28-day active users when all 28 days were reported (else at least its busiest day's active
-- users), at most the 28-day active users on its newest reported day (whose window holds them all).
--   1. at least $k of them, or not shown;
--   2. every day of the period shown: the period minus its shown days is its hidden days' sum,
--      few people's figures when a day was hidden by its own counts, and when it was hidden beside
--      another scope's day (rules 2 and 3 of _scope_day_status.sql; its own counts $k or more) that
--      day minus it would be (an enterprise's day minus an organization period active on that
--      day alone); so otherwise the period is not shown;
--   3. a period B that could be a part of another shown period A (each figure of B at most A's)
--      with fewer than $k people of A left beside B's, or a monthly count 1..$k-1 short, or, where
--      both scopes' user lines landed, no day of it with $k lines with activity or more of A's
--      beside B's: not shown;
--   4. an enterprise whose shown organizations of the period leave fewer than $k of its people
--      (or its monthly active users, or, where the user lines of its days landed, of any one day's
--      lines with activity) uncounted: not shown, unless nothing is left.
CREATE OR REPLACE TEMP TABLE aggregate_scope_period_status AS
WITH bounds AS (
    SELECT max(day) AS last_day
    FROM (SELECT day FROM core.daily_totals UNION ALL SELECT day FROM core.user_report_days)
), periods AS (
    SELECT t.scope, t.scope_name, (b.last_day - t.day) // 28 AS period_index,
           count(*) AS report_days,
           arg_max(t.monthly_active_users, t.day) AS mau,
           max(t.daily_active_users) AS busiest,
           coalesce(sum(t.user_initiated_interaction_count), 0) AS s1,
           coalesce(sum(t.code_generation_activity_count), 0) AS s2,
           coalesce(sum(t.code_acceptance_activity_count), 0) AS s3,
           coalesce(sum(t.loc_added_sum), 0) AS s4,
           coalesce(sum(t.loc_deleted_sum), 0) AS s5,
           coalesce(bool_and(d.shown), FALSE) AS hidden_days_k
    FROM core.daily_totals AS t
    JOIN aggregate_scope_day_status AS d USING (scope, scope_name, day)
    CROSS JOIN bounds AS b
    GROUP BY ALL
), people AS (
    SELECT *,
           CASE WHEN report_days = 28 THEN mau ELSE busiest END AS fewest,
           mau AS most,
           coalesce(CASE WHEN report_days = 28 THEN mau ELSE busiest END >= $k, FALSE) AS over_k
    FROM periods
), line_gaps AS (
    -- The most people with activity one scope's day has beside another's of the same date (both
    -- days' user lines landed): at least that many are behind the two periods' difference.
    SELECT b.scope, b.scope_name, a.scope AS a_scope, a.scope_name AS a_name,
           (x.last_day - b.day) // 28 AS period_index, max(a.lines - b.lines) AS gap
    FROM aggregate_scope_day_status AS b
    JOIN aggregate_scope_day_status AS a
      ON a.day = b.day AND (a.scope <> b.scope OR a.scope_name <> b.scope_name)
    CROSS JOIN bounds AS x
    WHERE a.lines IS NOT NULL AND b.lines IS NOT NULL
    GROUP BY ALL
), inside AS (
    SELECT DISTINCT b.scope, b.scope_name, b.period_index
    FROM people AS b
    JOIN people AS a
      ON a.period_index = b.period_index AND (a.scope <> b.scope OR a.scope_name <> b.scope_name)
    LEFT JOIN line_gaps AS g
      ON g.scope = b.scope AND g.scope_name = b.scope_name AND g.a_scope = a.scope AND g.a_name = a.scope_name
     AND g.period_index = b.period_index
    WHERE a.over_k AND b.over_k
      AND b.s1 <= a.s1 AND b.s2 <= a.s2 AND b.s3 <= a.s3 AND b.s4 <= a.s4 AND b.s5 <= a.s5
      AND coalesce(b.mau <= a.mau, TRUE)
      AND NOT (b.s1 = a.s1 AND b.s2 = a.s2 AND b.s3 = a.s3 AND b.s4 = a.s4 AND b.s5 = a.s5
               AND b.mau IS NOT DISTINCT FROM a.mau)
      AND (coalesce(a.fewest - b.most < $k, TRUE) OR a.mau - b.mau BETWEEN 1 AND $k - 1
           -- The service's counts hold users only its telemetry saw and leave out CLI-only users:
           -- judged by the lines with activity too, where they landed.
           OR coalesce(g.gap < $k, FALSE))
), after_pairs AS (
    SELECT p.*, p.over_k AND p.hidden_days_k AND i.period_index IS NULL AS shown_so_far
    FROM people AS p
    LEFT JOIN inside AS i USING (scope, scope_name, period_index)
), related AS (
    SELECT DISTINCT r.scope_name, r.enterprise, (b.last_day - r.day) // 28 AS period_index
    FROM core.organization_enterprise_days AS r, bounds AS b
), organizations AS (
    SELECT e.scope_name AS enterprise, e.period_index, o.*
    FROM after_pairs AS e
    JOIN after_pairs AS o ON o.period_index = e.period_index AND o.scope = 'organization' AND o.shown_so_far
    WHERE e.scope = 'enterprise' AND e.shown_so_far
      AND (EXISTS (SELECT 1 FROM related AS r
                   WHERE r.scope_name = o.scope_name AND r.period_index = o.period_index
                     AND r.enterprise = e.scope_name)
           OR (NOT EXISTS (SELECT 1 FROM related AS r
                           WHERE r.scope_name = o.scope_name AND r.period_index = o.period_index)
               AND o.s1 <= e.s1 AND o.s2 <= e.s2 AND o.s3 <= e.s3 AND o.s4 <= e.s4 AND o.s5 <= e.s5))
), lines_left AS (
    -- The most people with activity one of the enterprise's days has beside its shown
    -- organizations' lines of that day (NULL where a user-level report of one did not land).
    SELECT e.scope_name, e.period_index,
           max(CASE WHEN o.enterprise IS NULL THEN e.lines ELSE e.lines - o.lines END) AS people
    FROM (SELECT d.scope_name, d.day, (b.last_day - d.day) // 28 AS period_index, d.lines
          FROM aggregate_scope_day_status AS d, bounds AS b
          WHERE d.scope = 'enterprise') AS e
    LEFT JOIN (SELECT o.enterprise, d.day, CASE WHEN count(d.lines) = count(*) THEN sum(d.lines) END AS lines
          FROM organizations AS o
          JOIN aggregate_scope_day_status AS d ON d.scope = 'organization' AND d.scope_name = o.scope_name
          CROSS JOIN bounds AS b
          WHERE (b.last_day - d.day) // 28 = o.period_index
          GROUP BY ALL) AS o
      ON o.enterprise = e.scope_name AND o.day = e.day
    GROUP BY ALL
), few_left AS (
    SELECT e.scope_name, e.period_index
    FROM after_pairs AS e
    LEFT JOIN lines_left AS l ON l.scope_name = e.scope_name AND l.period_index = e.period_index
    JOIN organizations AS o ON o.enterprise = e.scope_name AND o.period_index = e.period_index
    WHERE e.scope = 'enterprise'
    GROUP BY e.scope_name, e.period_index, e.fewest, e.mau, e.s1, e.s2, e.s3, e.s4, e.s5, l.people
    -- An organization whose monthly count is not known bounds nothing: the enterprise is not shown.
    HAVING NOT coalesce(count(o.most) = count(*) AND e.fewest - sum(o.most) >= $k AND e.mau - sum(o.mau) >= $k
                        AND coalesce(l.people >= $k, TRUE), FALSE)
       AND NOT coalesce(e.s1 = sum(o.s1) AND e.s2 = sum(o.s2) AND e.s3 = sum(o.s3) AND e.s4 = sum(o.s4)
                        AND e.s5 = sum(o.s5) AND e.mau = sum(o.mau), FALSE)
)
SELECT a.scope, a.scope_name, a.period_index, a.fewest, a.most, a.over_k, a.s1, a.s2, a.s3,
       a.shown_so_far AND f.period_index IS NULL AS shown
FROM after_pairs AS a
LEFT JOIN few_left AS f
  ON a.scope = 'enterprise' AND f.scope_name = a.scope_name AND f.period_index = a.period_index
