-- The rows of the per-person metrics (pipelines/metrics/people.py), from the pseudonymous tier
-- only: each person's daily figures of the scope's user-level 1-day report, by pseudonym (the
-- tier holds no login or id). No row is hidden under k: the tier is per person by design.
CREATE OR REPLACE TEMP VIEW metrics_user_daily AS
SELECT scope, scope_name, day, pseudonym AS "user", FALSE AS suppressed, user_initiated_interaction_count,
       code_acceptance_activity_count
FROM pseudonymous.user_daily
WHERE report_kind = '1-day' AND day IS NOT NULL;
