-- bi.assistant_usage_daily: every coding assistant side by side, one person, one agent (issue 47;
-- docs/bi.md). Full tier: a row is one person's (or a vendor API key's) day.
-- Grain: one row per scope, scope_name, day, source and person. Sources:
--   `service`      the service's own surfaces (a user-level record, core.user_daily_totals);
--   `agent:<id>`   a third-party agent app as seen through the service (core.agent_activity, user level);
--   a vendor name  that vendor's own figures (`claude_code`: vendors.claude_code_days, `cursor`:
--                  vendors.cursor_days), all of a person's emails in one row.
-- person: the service login (bi.login_key) where the identity map (bi.assistant_identities) knows
-- one, else the vendor's email (login NULL: counted, never dropped), else `api key: <name>` (a
-- Claude Code API key's use); person_kind says which. A vendor row is in every scope whose seats
-- list the person or whose user-level report has them that day, and under scope `vendor`
-- (scope_name the vendor) when none does (every unmapped person is there).
-- Figures, each the source's own and NULL where it has none: active (service: any of its own
-- surfaces, core.active_on_any_surface; agent: a job start; Claude Code: a session; Cursor:
-- isActive), requests (top-level requests a person made: the service's user-initiated
-- interactions, Cursor's composer, chat, agent and Cmd-K requests), agent_job_starts (an agent
-- app's rows only: a different measure from requests, docs/service-contract.md §2, never added to
-- it), sessions (Claude Code's own, per user: the service has no user-level sessions), lines_added (service:
-- loc_added_sum; Claude Code: lines added; Cursor: totalLinesAdded), lines_accepted (Cursor:
-- acceptedLinesAdded). Never add requests of different sources: they count different things.
-- Overlap: an agent app the agent map (core.agent_vendors, from Vendor.agents) says is a vendor's,
-- and that vendor's own row, for the same scope, person and day, both stay; the vendor's row is
-- counted (its figures hold the person's whole use of the vendor that day), the agent app's
-- `counted` is false and `overlaps` names the vendor, the vendor's `overlaps` the agent sources.
-- Sum counted rows only: a person's use of one vendor on a day is then in one row.
-- team_ids, team_slugs: the teams the person was on that day in the scope (core.user_team_days,
-- as bi.ai_credits_daily gives them): a row per person, never per team.
-- bi.assistant_usage_rows(): the view's rows but their teams, which the aggregate tier reads (a
-- person's teams of every day are a year's largest aggregate, and the tier needs none of them).
CREATE OR REPLACE MACRO bi.assistant_usage_rows() AS TABLE
WITH vendor_days AS (
    SELECT 'claude_code' AS vendor, day,
           CASE WHEN actor_type = 'user_actor' THEN lower(trim(email)) END AS email,
           CASE WHEN actor_type <> 'user_actor' THEN 'api key: ' || actor END AS api_key,
           coalesce(num_sessions, 0) > 0 AS active, CAST(NULL AS BIGINT) AS requests, num_sessions AS sessions,
           lines_added, CAST(NULL AS BIGINT) AS lines_accepted, is_final
    FROM vendors.claude_code_days
    UNION ALL
    SELECT 'cursor', day, lower(trim(email)), NULL, coalesce(is_active, FALSE),
           coalesce(composer_requests, 0) + coalesce(chat_requests, 0) + coalesce(agent_requests, 0)
               + coalesce(cmdk_usages, 0),
           NULL, total_lines_added, accepted_lines_added, is_final
    FROM vendors.cursor_days
), vendor_people AS (
    SELECT v.vendor, v.day,
           bi.assistant_person(i.login, v.email, v.api_key) AS person,
           min(i.login) AS login,
           bi.assistant_person_kind(min(i.login), min(v.email)) AS person_kind,
           coalesce(list(DISTINCT v.email ORDER BY v.email) FILTER (WHERE v.email IS NOT NULL), []) AS emails,
           bool_or(v.active) AS active, CAST(sum(v.requests) AS BIGINT) AS requests,
           CAST(sum(v.sessions) AS BIGINT) AS sessions, CAST(sum(v.lines_added) AS BIGINT) AS lines_added,
           CAST(sum(v.lines_accepted) AS BIGINT) AS lines_accepted, bool_and(v.is_final) AS is_final
    FROM vendor_days AS v
    LEFT JOIN bi.assistant_identities AS i ON i.email = v.email
    GROUP BY v.vendor, v.day, bi.assistant_person(i.login, v.email, v.api_key)
), service AS (
    SELECT u.scope, u.scope_name, u.day, 'service' AS source, 'service' AS source_kind,
           CAST(NULL AS VARCHAR) AS agent_id, CAST(NULL AS VARCHAR) AS vendor,
           coalesce(bi.login_key(u.user_login), 'user ' || u.user_id) AS person, u.user_login AS login,
           'login' AS person_kind, CAST([] AS VARCHAR[]) AS emails,
           core.active_on_any_surface(u, 0) AS active, u.user_initiated_interaction_count AS requests,
           CAST(NULL AS BIGINT) AS sessions, u.loc_added_sum AS lines_added, CAST(NULL AS BIGINT) AS lines_accepted,
           u.is_final
    FROM core.user_daily_totals AS u
), agents AS (
    SELECT a.scope, a.scope_name, a.day, 'agent:' || a.agent_id AS source, 'agent_app' AS source_kind,
           a.agent_id, m.vendor,
           coalesce(bi.login_key(a.user_login), 'user ' || a.user_id) AS person, a.user_login AS login,
           'login' AS person_kind, CAST([] AS VARCHAR[]) AS emails,
           coalesce(a.agent_job_starts, 0) > 0 AS active, a.agent_job_starts,
           CAST(NULL AS BIGINT) AS sessions, CAST(NULL AS BIGINT) AS lines_added,
           CAST(NULL AS BIGINT) AS lines_accepted, a.is_final
    FROM core.agent_activity AS a
    LEFT JOIN core.agent_vendors AS m USING (agent_id)
    WHERE a.level = 'user'
), vendor_scopes AS (
    -- Each row once without a DISTINCT over a year of person-days: a seat's scopes, then a report's
    -- scopes that are no seat's of the person (each side is one row a person, day and scope).
    SELECT s.scope, s.scope_name, v.vendor, v.day, v.person
    FROM vendor_people AS v JOIN bi.assistant_member_scopes() AS s USING (person)
    WHERE v.person_kind = 'login'
    UNION ALL
    SELECT r.scope, r.scope_name, v.vendor, v.day, v.person
    FROM vendor_people AS v JOIN bi.assistant_report_scopes() AS r USING (day, person)
    WHERE v.person_kind = 'login'
      AND NOT EXISTS (SELECT 1 FROM bi.assistant_member_scopes() AS m
                      WHERE m.person = v.person AND m.scope = r.scope AND m.scope_name = r.scope_name)
), vendors AS (
    SELECT coalesce(s.scope, 'vendor') AS scope, coalesce(s.scope_name, v.vendor) AS scope_name, v.day,
           v.vendor AS source, 'vendor' AS source_kind, CAST(NULL AS VARCHAR) AS agent_id, v.vendor,
           v.person, v.login, v.person_kind, v.emails, v.active, v.requests, v.sessions, v.lines_added,
           v.lines_accepted, v.is_final
    FROM vendor_people AS v
    LEFT JOIN vendor_scopes AS s USING (vendor, day, person)
), everything AS (
    SELECT * FROM service
    UNION ALL BY NAME
    SELECT * FROM agents
    UNION ALL BY NAME
    SELECT * FROM vendors
), overlap AS (
    -- An agent app's row and its vendor's own row of the same scope, person and day: the pairs alone
    -- (a list per vendor row of a year would not fit the publish's memory).
    SELECT a.scope, a.scope_name, a.day, a.person, a.vendor, list(a.source ORDER BY a.source) AS agent_sources
    FROM agents AS a
    JOIN vendors AS v USING (scope, scope_name, day, person, vendor)
    GROUP BY ALL
)
SELECT
    e.scope,
    e.scope_name,
    e.day,
    e.source,
    e.source_kind,
    e.agent_id,
    e.vendor,
    e.person,
    e.person_kind,
    e.login,
    e.emails,
    e.active,
    e.requests,
    e.agent_job_starts,
    e.sessions,
    e.lines_added,
    e.lines_accepted,
    e.is_final,
    NOT (e.source_kind = 'agent_app' AND o.person IS NOT NULL) AS counted,
    CASE WHEN o.person IS NULL THEN NULL
         WHEN e.source_kind = 'agent_app' THEN e.vendor
         WHEN e.source_kind = 'vendor' THEN array_to_string(o.agent_sources, ',')
    END AS overlaps
FROM everything AS e
LEFT JOIN overlap AS o USING (scope, scope_name, day, person, vendor);

CREATE OR REPLACE VIEW bi.assistant_usage_daily AS
SELECT u.scope, u.scope_name, u.day, u.source, u.source_kind, u.agent_id, u.vendor, u.person, u.person_kind,
       u.login, u.emails, coalesce(t.team_ids, []) AS team_ids, coalesce(t.team_slugs, []) AS team_slugs,
       u.active, u.requests, u.agent_job_starts, u.sessions, u.lines_added, u.lines_accepted, u.is_final,
       u.counted, u.overlaps
FROM bi.assistant_usage_rows() AS u
LEFT JOIN bi.assistant_person_teams() AS t USING (scope, scope_name, day, person);


COMMENT ON VIEW bi.assistant_usage_daily IS 'Full tier. One row per scope, day, source (service, agent:<agent_id>, claude_code, cursor) and person (login, else the vendor''s email, else its API key): active, requests, agent_job_starts (agent apps only, never added to requests), sessions (Claude Code''s), lines added and accepted as each source has them (NULL: none). counted = false on an agent app''s row whose vendor''s own row is there for the same person and day (overlaps names it): sum counted rows only.';
