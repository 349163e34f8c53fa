-- bi.adoption_phases
-- Grain: one row per scope, scope_name, day and AI adoption phase (0 no cohort, 1 code first,
-- 2 agent first, 3 multi-agent: the surfaces a user used on at least two of the last 28 days).
-- phase: the service's label of the phase number (bi.adoption_phase_labels), or, for a number
-- it does not declare, the label the aggregate report gave.
-- engaged_users: the aggregate report's users of the phase active that day. population_28d: the
-- phase's whole rolling 28-day population as of the day (28-day reports since September 2026,
-- else NULL), and population_share its share of all phases': the denominator for 28-day rates.
-- users_in_user_report: the user rows of the day in the phase (any user the user report lists).
-- The avg_* columns are averages per engaged user of the phase as the service computed them:
-- never sum them across phases or days, weigh them by engaged_users to combine.
CREATE OR REPLACE VIEW bi.adoption_phases AS
WITH users AS (
    SELECT scope, scope_name, day, phase_number, users AS users_in_user_report
    FROM core.phase_user_days
)
SELECT
    coalesce(p.scope, u.scope) AS scope,
    coalesce(p.scope_name, u.scope_name) AS scope_name,
    coalesce(p.day, u.day) AS day,
    coalesce(p.phase_number, u.phase_number) AS phase_number,
    coalesce(l.phase, p.phase) AS phase,
    p.total_engaged_users AS engaged_users,
    p.users_in_phase_28d AS population_28d,
    p.users_in_phase_28d / nullif(sum(p.users_in_phase_28d) OVER (PARTITION BY p.scope, p.scope_name, p.day), 0)
        AS population_share,
    u.users_in_user_report,
    p.total_pull_requests_merged AS pull_requests_merged,
    p.avg_user_initiated_interactions,
    p.avg_code_generation_activities,
    p.avg_code_acceptance_activities,
    p.avg_loc_added,
    p.avg_loc_deleted,
    p.avg_pull_requests_created,
    p.avg_pull_requests_merged,
    p.avg_pull_requests_reviewed,
    p.avg_pull_requests_median_minutes_to_merge,
    p.avg_pull_requests_minutes_to_review,
    p.avg_pull_requests_review_cycles,
    p.is_final
FROM core.adoption_phases AS p
FULL JOIN users AS u
  ON u.scope = p.scope AND u.scope_name = p.scope_name AND u.day = p.day AND u.phase_number = p.phase_number
LEFT JOIN bi.adoption_phase_labels AS l ON l.phase_number = coalesce(p.phase_number, u.phase_number);

COMMENT ON VIEW bi.adoption_phases IS 'One row per scope, day and AI adoption phase (0 No Cohort, Phase 1 .. Phase 3): engaged users that day, the rolling 28-day population and its share, users of the phase in the user report, and the service''s averages per engaged user (never summed across phases or days).';
