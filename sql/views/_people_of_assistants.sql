-- Where a person of a vendor belongs, declared once for bi.assistant_usage_daily and
-- bi.assistant_cost_daily (the file name sorts before the views that call these). A person is
-- their service login's key (bi.login_key). Each reads the base tables alone, so a view's filter
-- on day reaches them.
-- The scopes whose seats list the person, on any snapshot: they belong there every day.
CREATE OR REPLACE MACRO bi.assistant_member_scopes() AS TABLE
SELECT 'organization' AS scope, org_login AS scope_name, bi.login_key(login) AS person
FROM snapshots.seats WHERE login IS NOT NULL
UNION
SELECT 'enterprise', enterprise, bi.login_key(login) FROM snapshots.enterprise_seats WHERE login IS NOT NULL;
-- The scopes whose user-level report has the person that day.
CREATE OR REPLACE MACRO bi.assistant_report_scopes() AS TABLE
-- (A user-level record is one a user a day: no DISTINCT, whose hash table a year would not fit.)
SELECT scope, scope_name, day, coalesce(bi.login_key(user_login), 'user ' || user_id) AS person
FROM core.user_daily_totals;
-- The teams a person was on that day in the scope (core.user_team_days, as bi.ai_credits_daily
-- gives them), the slug as the team's newest.
CREATE OR REPLACE MACRO bi.assistant_person_teams() AS TABLE
SELECT t.scope, t.scope_name, t.day, bi.login_key(t.user_login) AS person,
       list(t.team_id ORDER BY t.team_id) AS team_ids,
       list(coalesce(d.slug, t.slug) ORDER BY t.team_id) AS team_slugs
FROM core.user_team_days AS t
LEFT JOIN core.dim_team AS d ON d.scope = t.scope AND d.scope_name = t.scope_name AND d.team_id = t.team_id
WHERE t.user_login IS NOT NULL
GROUP BY ALL;
-- A vendor's person: the service login's key where the identity map knows one, else the email,
-- else the API key's name; and which of the three it is.
CREATE OR REPLACE MACRO bi.assistant_person(login, email, api_key) AS coalesce(bi.login_key(login), email, api_key);
CREATE OR REPLACE MACRO bi.assistant_person_kind(login, email) AS
    CASE WHEN login IS NOT NULL THEN 'login' WHEN email IS NOT NULL THEN 'email' ELSE 'api_key' END;
