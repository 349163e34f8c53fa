-- bi.credit_reconciliation
-- Grain: one row per scope, scope_name, day and user_login, on the days both the usage export
-- (billing.user_usage, an enterprise's) and the user-level usage report landed, for users with
-- reported or billed AI credits. reported_credits: the report's ai_credits_used
-- (core.user_daily_totals), which the service calls a signal for analyzing consumption, not a
-- billed total; billed_credits: the export's quantities in 'ai-credits', every SKU;
-- difference = billed_credits - reported_credits.
-- call: 'agrees' when the credits of the SKUs the signal holds are within the tolerance of the
-- reported ones: 2% of them or 1 credit, whichever is more (the signal is not a bill: the
-- service rounds and attributes it apart from billing, so a small difference is expected; the
-- one credit keeps a light user's rounding from reading as a difference); 'differs' beyond it;
-- 'billed, not reported' when the user is billed but absent from the day's report (telemetry
-- off: the reports leave such users out) or billed only for SKUs the signal does not hold (the
-- coding agent, Spark); 'reported, not billed' when the export bills the user nothing that day.
-- explanation says it in words, with the credits outside the signal and whether the bill's
-- month or the report's day was still open (late usage posts until the month closes).
-- A user is one login in any spelling (bi.login_key): the export and the report may spell it
-- apart, and user_login is the report's spelling where the report has the user.
CREATE OR REPLACE VIEW bi.credit_reconciliation AS
WITH settings AS (
    SELECT CAST(0.02 AS DECIMAL(18, 6)) AS tolerance_share, CAST(1 AS DECIMAL(18, 6)) AS tolerance_credits
), outside_signal AS (
    -- The SKUs the usage reports' ai_credits_used does not hold.
    SELECT sku, what FROM (VALUES ('coding_agent_ai_credit', 'the coding agent'), ('spark_ai_credit', 'Spark'))
        AS s(sku, what)
), days AS (
    SELECT DISTINCT u.scope, u.scope_name, u.day
    FROM billing.user_usage AS u
    JOIN core.user_report_days AS r USING (scope, scope_name, day)
), billed AS (
    SELECT u.scope, u.scope_name, u.day, bi.login_key(u.user_login) AS login, min(u.user_login) AS user_login,
           sum(u.quantity) AS credits,
           coalesce(sum(u.quantity) FILTER (WHERE o.sku IS NULL), 0) AS signal_credits,
           coalesce(sum(u.quantity) FILTER (WHERE o.sku IS NOT NULL), 0) AS outside_credits,
           string_agg(DISTINCT o.what, ' and ' ORDER BY o.what) AS outside_what,
           bool_and(coalesce(u.month_closed, FALSE)) AS month_closed
    FROM billing.user_usage AS u
    JOIN days AS d USING (scope, scope_name, day)
    LEFT JOIN outside_signal AS o USING (sku)
    WHERE u.unit_type = 'ai-credits'
    GROUP BY ALL
), reported AS (
    SELECT t.scope, t.scope_name, t.day, bi.login_key(t.user_login) AS login, t.user_login,
           coalesce(t.ai_credits_used, 0) AS credits,
           coalesce(t.is_final, TRUE) AS is_final
    FROM core.user_daily_totals AS t
    JOIN days AS d USING (scope, scope_name, day)
), paired AS (
    SELECT coalesce(r.scope, b.scope) AS scope, coalesce(r.scope_name, b.scope_name) AS scope_name,
           coalesce(r.day, b.day) AS day, coalesce(r.user_login, b.user_login) AS user_login,
           r.user_login IS NOT NULL AS in_report, r.credits AS reported_credits, r.is_final,
           coalesce(b.credits, 0) AS billed_credits, coalesce(b.signal_credits, 0) AS signal_credits,
           coalesce(b.outside_credits, 0) AS outside_credits, b.outside_what, b.month_closed
    FROM reported AS r
    FULL JOIN billed AS b
      ON b.scope = r.scope AND b.scope_name = r.scope_name AND b.day = r.day AND b.login = r.login
    WHERE coalesce(r.credits, 0) > 0 OR coalesce(b.credits, 0) > 0
), called AS (
    SELECT p.*, p.billed_credits - coalesce(p.reported_credits, 0) AS difference,
           greatest(s.tolerance_share * coalesce(p.reported_credits, 0), s.tolerance_credits) AS tolerance,
           CASE
               WHEN NOT p.in_report THEN 'billed, not reported'
               WHEN p.billed_credits = 0 THEN 'reported, not billed'
               WHEN p.signal_credits = 0 AND p.reported_credits = 0 THEN 'billed, not reported'
               WHEN abs(p.signal_credits - p.reported_credits)
                    <= greatest(s.tolerance_share * p.reported_credits, s.tolerance_credits) THEN 'agrees'
               ELSE 'differs'
           END AS call
    FROM paired AS p
    CROSS JOIN settings AS s
)
SELECT
    c.scope,
    c.scope_name,
    c.day,
    c.user_login,
    c.reported_credits,
    CAST(c.billed_credits AS DECIMAL(38, 6)) AS billed_credits,
    CAST(c.difference AS DECIMAL(38, 6)) AS difference,
    c.call,
    concat_ws('. ',
        CASE c.call
            WHEN 'agrees' THEN 'billed within 2% or 1 credit of the reported credits: the report''s field is a '
                               || 'usage signal, not a bill, and the two round apart'
            WHEN 'differs' THEN 'billed ' || CAST(c.signal_credits AS VARCHAR) || ' credits the signal holds against '
                                || CAST(c.reported_credits AS VARCHAR) || ' reported, beyond 2% or 1 credit'
            WHEN 'reported, not billed' THEN 'the usage report gives ' || CAST(c.reported_credits AS VARCHAR)
                                             || ' credits and the export bills none for this user that day'
            ELSE CASE WHEN NOT c.in_report
                      THEN 'billed but absent from the day''s usage report: a user whose telemetry is off is in '
                           || 'no report'
                      ELSE 'billed only for SKUs the usage signal does not hold' END
        END,
        CASE WHEN c.outside_credits > 0
             THEN CAST(c.outside_credits AS VARCHAR) || ' credits of ' || c.outside_what
                  || ', which the usage reports'' ai_credits_used does not hold' END,
        CASE WHEN c.call IN ('differs', 'reported, not billed') AND NOT coalesce(c.month_closed, FALSE)
             THEN 'the bill''s month was open when fetched: usage posts late until it closes' END,
        CASE WHEN c.call IN ('differs', 'billed, not reported') AND NOT coalesce(c.is_final, TRUE)
             THEN 'the report''s day was not final when fetched: it is still filling in' END
    ) AS explanation
FROM called AS c;

COMMENT ON VIEW bi.credit_reconciliation IS 'One row per scope, day and user: the usage reports'' ai_credits_used (a signal, not a bill) against the export''s billed AI credits, the difference, the call (agrees within 2% or 1 credit, differs, billed not reported, reported not billed) and why, in words.';
