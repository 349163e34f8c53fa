-- bi.ai_credits_daily (extension: docs/extensions.md)
-- Grain: one row per scope, scope_name, day and user of the user-level report, with the AI
-- credits the user's record carries (a usage signal in credits, not a billed amount; exact to
-- six decimals, so sums are exact) and the teams the user was on that day (team_ids and their
-- latest slugs; empty when on no listed team). is_final: the day was final when fetched. Sum ai_credits_used over users for a scope; for
-- credits by team use bi.team_usage_daily.ai_credits_used (a user on two teams counts in both).
CREATE OR REPLACE VIEW bi.ai_credits_daily AS
WITH teams AS (
    SELECT t.scope, t.scope_name, t.day, t.user_id,
           list(t.team_id ORDER BY t.team_id) AS team_ids,
           list(coalesce(d.slug, t.slug) ORDER BY t.team_id) AS team_slugs
    FROM core.user_team_days AS t
    LEFT JOIN core.dim_team AS d ON d.scope = t.scope AND d.scope_name = t.scope_name AND d.team_id = t.team_id
    GROUP BY ALL
)
SELECT
    u.scope,
    u.scope_name,
    u.day,
    u.user_id,
    u.user_login,
    u.ai_credits_used,
    u.is_final,
    coalesce(t.team_ids, []) AS team_ids,
    coalesce(t.team_slugs, []) AS team_slugs
FROM core.user_daily_totals AS u
LEFT JOIN teams AS t USING (scope, scope_name, day, user_id);

COMMENT ON VIEW bi.ai_credits_daily IS 'Extension. One row per scope, day and user: AI credits used (a usage signal, not a bill) and the teams the user was on that day.';
