-- bi.assistant_cost_daily: what every coding assistant costs, side by side (issue 47; docs/bi.md).
-- (The file's name sorts after bi.cost_daily's and bi.assistant_identities', which it reads.)
-- Full tier. Grain: one row per scope, scope_name, day, source and cost_kind, and per person for a
-- vendor (the service's bill is the scope's: person NULL). Money in US dollars, DECIMAL(38,8):
-- exact to the vendors' cents with their six decimals, never a float.
--   `service`     cost_kind `billed`: the day's bill (bi.cost_daily summed over its meters, products,
--                 SKUs and models): amount_usd the net, gross_usd before the seats' included allowance;
--                 is_final once the month was closed when fetched.
--   `claude_code` Anthropic's estimated cost of the person's tokens that day (vendors.claude_code_models),
--                 cost_kind `api_estimate` (an API customer: Anthropic bills the tokens),
--                 `subscription_estimate` (a Team or Enterprise seat: the seat's price pays it, billed false) or
--                 `unknown_estimate` (no customer type sent: billed false, never claimed). An amount in a
--                 currency other than USD is left out (vendors.claude_code_models keeps it).
--   `cursor`      cost_kind `on_demand`: the spend Cursor bills beyond the plan (spend_cents), gross_usd
--                 all requests' (overall_spend_cents). Cursor tells only the cycle to date: a row is the
--                 growth since the person's previous read in the cycle (the cycle's first read: since
--                 cycle_start), placed on its read's day; covers_from..day are the days it holds (more
--                 than one where a run was missed). is_final once a later day's read exists; the days of a
--                 cycle after its last read are in no row.
-- The sources are paid to different payees: the service bills its own surfaces and the third-party
-- agent apps run through it, a vendor the use of its own product; within a scope, a sum of billed
-- amounts across sources is what was spent, never a count twice. Never add scopes: a scope's
-- enterprise bill already holds its organizations', and a vendor's person is in every scope that
-- has them (two organizations, an enterprise and its organization), as in bi.assistant_usage_daily.
-- person, login, scope, teams: by bi.assistant_usage_daily's rule, on the row's day (a person the map
-- knows: each scope whose seats list them or whose report has them that day; else scope `vendor`).
-- bi.assistant_cost_rows(): the view's rows but their teams, which the aggregate tier reads.
CREATE OR REPLACE MACRO bi.assistant_cost_rows() AS TABLE
WITH claude AS (
    SELECT 'claude_code' AS vendor, m.day, m.day AS covers_from,
           CASE WHEN m.actor_type = 'user_actor' THEN lower(trim(m.email)) END AS email,
           CASE WHEN m.actor_type <> 'user_actor' THEN 'api key: ' || m.actor END AS api_key,
           CASE d.customer_type WHEN 'subscription' THEN 'subscription_estimate' WHEN 'api' THEN 'api_estimate'
                ELSE 'unknown_estimate' END AS cost_kind,
           CAST(sum(m.estimated_cost_cents) * 0.01 AS DECIMAL(38, 8)) AS amount_usd,
           CAST(sum(m.estimated_cost_cents) * 0.01 AS DECIMAL(38, 8)) AS gross_usd,
           bool_and(m.is_final) AS is_final
    FROM vendors.claude_code_models AS m
    JOIN vendors.claude_code_days AS d USING (day, actor_type, actor)
    -- Anthropic documents USD alone: an amount in another currency is never added as dollars.
    WHERE m.estimated_cost_cents IS NOT NULL AND coalesce(m.currency, 'USD') = 'USD'
    GROUP BY ALL
), cursor_reads AS (
    SELECT read_day, cycle_start, lower(trim(email)) AS email, spend_cents, overall_spend_cents,
           lag(read_day) OVER cycle AS previous_day,
           lag(spend_cents) OVER cycle AS previous_spend,
           lag(overall_spend_cents) OVER cycle AS previous_overall
    FROM vendors.cursor_spend
    WINDOW cycle AS (PARTITION BY cycle_start, lower(trim(email)) ORDER BY read_day)
), cursor AS (
    SELECT 'cursor' AS vendor, read_day AS day, coalesce(previous_day + 1, cycle_start) AS covers_from,
           email, CAST(NULL AS VARCHAR) AS api_key, 'on_demand' AS cost_kind,
           CAST((coalesce(spend_cents, 0) - coalesce(previous_spend, 0)) * 0.01 AS DECIMAL(38, 8)) AS amount_usd,
           CAST((coalesce(overall_spend_cents, 0) - coalesce(previous_overall, 0)) * 0.01 AS DECIMAL(38, 8)) AS gross_usd,
           read_day < (SELECT max(read_day) FROM vendors.cursor_spend) AS is_final
    FROM cursor_reads
), vendor_costs AS (
    -- One row a person a day: two emails of one login read apart hold the earlier first day.
    SELECT c.vendor, c.day, min(c.covers_from) AS covers_from, c.cost_kind,
           bi.assistant_person(i.login, c.email, c.api_key) AS person,
           min(i.login) AS login,
           bi.assistant_person_kind(min(i.login), min(c.email)) AS person_kind,
           CAST(sum(c.amount_usd) AS DECIMAL(38, 8)) AS amount_usd,
           CAST(sum(c.gross_usd) AS DECIMAL(38, 8)) AS gross_usd,
           bool_and(c.is_final) AS is_final
    FROM (SELECT * FROM claude UNION ALL BY NAME SELECT * FROM cursor) AS c
    LEFT JOIN bi.assistant_identities AS i ON i.email = c.email
    GROUP BY c.vendor, c.day, c.cost_kind, bi.assistant_person(i.login, c.email, c.api_key)
    HAVING sum(c.amount_usd) <> 0 OR sum(c.gross_usd) <> 0
), scopes AS (
    -- The usage view's rule (sql/views/_people_of_assistants.sql): the person's seats' scopes, and
    -- those whose report has them that day, each once.
    SELECT c.vendor, c.day, c.person, s.scope, s.scope_name
    FROM (SELECT DISTINCT vendor, day, person FROM vendor_costs WHERE person_kind = 'login') AS c
    JOIN bi.assistant_member_scopes() AS s USING (person)
    UNION ALL
    SELECT c.vendor, c.day, c.person, r.scope, r.scope_name
    FROM (SELECT DISTINCT vendor, day, person FROM vendor_costs WHERE person_kind = 'login') AS c
    JOIN bi.assistant_report_scopes() AS r USING (day, person)
    WHERE NOT EXISTS (SELECT 1 FROM bi.assistant_member_scopes() AS m
                      WHERE m.person = c.person AND m.scope = r.scope AND m.scope_name = r.scope_name)
), placed AS (
    SELECT coalesce(s.scope, 'vendor') AS scope, coalesce(s.scope_name, c.vendor) AS scope_name, c.*
    FROM vendor_costs AS c LEFT JOIN scopes AS s USING (vendor, day, person)
), service AS (
    SELECT scope, scope_name, day, day AS covers_from, 'service' AS source, 'billed' AS cost_kind, TRUE AS billed,
           CAST(NULL AS VARCHAR) AS person, 'scope' AS person_kind, CAST(NULL AS VARCHAR) AS login,
           CAST(sum(net_amount) AS DECIMAL(38, 8)) AS amount_usd,
           CAST(sum(gross_amount) AS DECIMAL(38, 8)) AS gross_usd,
           bool_and(month_closed) AS is_final
    FROM bi.cost_daily
    GROUP BY scope, scope_name, day
)
SELECT scope, scope_name, day, covers_from, source, cost_kind, billed, person, person_kind, login, amount_usd,
       gross_usd, is_final
FROM service
UNION ALL
SELECT scope, scope_name, day, covers_from, vendor, cost_kind, cost_kind IN ('api_estimate', 'on_demand'), person,
       person_kind, login, amount_usd, gross_usd, is_final
FROM placed;

CREATE OR REPLACE VIEW bi.assistant_cost_daily AS
SELECT c.scope, c.scope_name, c.day, c.covers_from, c.source, c.cost_kind, c.billed, c.person, c.person_kind, c.login,
       coalesce(t.team_ids, []) AS team_ids, coalesce(t.team_slugs, []) AS team_slugs, c.amount_usd, c.gross_usd,
       c.is_final
FROM bi.assistant_cost_rows() AS c
LEFT JOIN bi.assistant_person_teams() AS t USING (scope, scope_name, day, person);

COMMENT ON VIEW bi.assistant_cost_daily IS 'Full tier. One row per scope, day, source (service, claude_code, cursor), cost kind and person (the service''s bill: the scope''s, person NULL): amount_usd and gross_usd (DECIMAL dollars, exact), billed (false: a subscription seat pays it), covers_from (Cursor''s spend grows between reads: the days a row holds) and is_final. Sources are paid to different payees: billed amounts of a scope add up to what it spent. Never add scopes: a person is in each scope that has them, and an enterprise''s bill holds its organizations''.';
