-- bi.budget_burn
-- Grain: one row per enterprise, budget (the enterprise's newest budget snapshot,
-- billing.budgets) and month of the enterprise's bill. consumed_to_date: the month's net spend
-- the budget covers, from the landed bill: budget_scope 'enterprise' the enterprise's bill,
-- 'organization' that organization's (budget_entity_name), 'cost_center' that cost center's
-- (by id, or by name on the newest cost-center snapshot: the active cost center of that name, a
-- deleted one's usage never counting under it; the deleted ones only when none active has it),
-- 'user' that user's lines of the usage export (billing.user_usage), whatever the spelling of the
-- login (bi.login_key: the budget and the export may spell it apart); only the lines of budget_product_sku, a product, a SKU or a bundle
-- of a meter's SKUs ('ai_credits', 'premium_requests'; all when empty). Other scopes (repository, multi-user) are not in the landed bill: NULL.
-- projected_month_end: linear on the days elapsed, consumed_to_date / (the day of the month of
-- the newest billed day) * (the days of the month), in DECIMAL rounded down to $0.000001; a
-- closed month (or one billed to its last day) projects what it consumed. projected_over:
-- the projection exceeds budget_amount (whole dollars). users_blocked (the newest month only):
-- the budget's user-states (billing.budget_user_states, newest snapshot) whose consumed amount
-- reached their target, when prevent_further_usage stops their usage; 0 when it does not.
CREATE OR REPLACE VIEW bi.budget_burn AS
WITH bundles AS (
    -- A bundle a budget may name instead of a product or SKU: every SKU of the meter.
    SELECT bundle, meter FROM (VALUES ('ai_credits', 'ai_credit'), ('premium_requests', 'premium_request'))
        AS b(bundle, meter)
), budgets AS (
    SELECT b.*
    FROM billing.budgets AS b
    JOIN (SELECT enterprise, max(snapshot_day) AS snapshot_day FROM billing.budgets GROUP BY ALL) AS n
      USING (enterprise, snapshot_day)
), states AS (
    SELECT s.*
    FROM billing.budget_user_states AS s
    JOIN (SELECT enterprise, max(snapshot_day) AS snapshot_day FROM billing.budget_user_states GROUP BY ALL) AS n
      USING (enterprise, snapshot_day)
), centers AS (
    SELECT c.enterprise, c.cost_center_id, c.name, coalesce(c.state, '') <> 'deleted' AS active
    FROM billing.cost_centers AS c
    JOIN (SELECT enterprise, max(snapshot_day) AS snapshot_day FROM billing.cost_centers GROUP BY ALL) AS n
      USING (enterprise, snapshot_day)
), named AS (
    -- The cost centers a name means: the active ones of that name; a deleted one only when no
    -- active cost center has the name (the budget is then the deleted cost center's own).
    SELECT enterprise, cost_center_id, name
    FROM centers
    WHERE name IS NOT NULL
    QUALIFY active OR NOT bool_or(active) OVER (PARTITION BY enterprise, name)
), months AS (
    SELECT scope_name AS enterprise, date_trunc('month', day) AS month, max(day) AS newest_day,
           bool_and(coalesce(month_closed, FALSE)) AS month_closed
    FROM billing.credit_usage
    WHERE scope = 'enterprise'
    GROUP BY ALL
), spend AS (
    -- Every landed net line a budget could cover, with what it is of.
    SELECT 'enterprise' AS budget_scope, scope_name AS enterprise, scope_name AS entity, day, meter, product, sku,
           net_amount
    FROM billing.credit_usage
    WHERE scope = 'enterprise'
    UNION ALL
    SELECT 'organization', NULL, scope_name, day, meter, product, sku, net_amount
    FROM billing.credit_usage
    WHERE scope = 'organization'
    UNION ALL
    SELECT 'cost_center', u.scope_name, u.cost_center_id, u.day, u.meter, u.product, u.sku, u.net_amount
    FROM billing.cost_center_usage AS u
    WHERE u.scope = 'enterprise' AND u.cost_center_id <> 'none'
    UNION ALL
    SELECT 'user', scope_name, bi.login_key(user_login), day,
           CASE unit_type WHEN 'ai-credits' THEN 'ai_credit' WHEN 'requests' THEN 'premium_request' END,
           product, sku, net_amount
    FROM billing.user_usage
    WHERE scope = 'enterprise'
), consumed AS (
    SELECT b.enterprise, b.budget_id, m.month, sum(s.net_amount) AS amount
    FROM budgets AS b
    JOIN months AS m USING (enterprise)
    LEFT JOIN (SELECT enterprise, cost_center_id, cost_center_id AS named_by FROM centers
               UNION
               SELECT enterprise, cost_center_id, name FROM named) AS c
      ON b.budget_scope = 'cost_center' AND c.enterprise = b.enterprise AND c.named_by = b.budget_entity_name
    LEFT JOIN bundles AS bu ON bu.bundle = b.budget_product_sku
    JOIN spend AS s
      ON s.budget_scope = b.budget_scope AND date_trunc('month', s.day) = m.month
     AND coalesce(s.enterprise, b.enterprise) = b.enterprise
     AND s.entity = CASE b.budget_scope WHEN 'enterprise' THEN b.enterprise
                                        WHEN 'cost_center' THEN c.cost_center_id
                                        WHEN 'user' THEN bi.login_key(coalesce(b.user_login, b.budget_entity_name))
                                        ELSE b.budget_entity_name END
     AND (coalesce(b.budget_product_sku, '') = '' OR s.sku = b.budget_product_sku OR s.product = b.budget_product_sku
          OR s.meter = bu.meter)
    GROUP BY ALL
), blocked AS (
    SELECT enterprise, budget_id, count(*) AS users
    FROM states
    WHERE consumed_amount >= target_amount
    GROUP BY ALL
), burn AS (
    SELECT b.enterprise, b.budget_id, b.budget_type, b.budget_scope, b.budget_entity_name, b.budget_product_sku,
           b.budget_amount, CAST(m.month AS DATE) AS month, m.newest_day, m.month_closed,
           m.month = max(m.month) OVER (PARTITION BY b.enterprise) AS newest_month,
           b.prevent_further_usage,
           CASE WHEN b.budget_scope IN ('enterprise', 'organization', 'cost_center', 'user')
                THEN coalesce(c.amount, 0) END AS consumed,
           dayofmonth(last_day(m.month)) AS month_days, dayofmonth(m.newest_day) AS days_elapsed
    FROM budgets AS b
    JOIN months AS m USING (enterprise)
    LEFT JOIN consumed AS c ON c.enterprise = b.enterprise AND c.budget_id = b.budget_id AND c.month = m.month
), projected AS (
    SELECT *,
           CASE WHEN month_closed OR days_elapsed = month_days THEN CAST(consumed AS DECIMAL(18, 6))
                ELSE bi.from_micro(bi.micro(consumed) * month_days // days_elapsed) END AS projection
    FROM burn
)
SELECT
    p.enterprise,
    p.budget_id,
    p.budget_type,
    p.budget_scope,
    p.budget_entity_name,
    p.budget_product_sku,
    p.budget_amount,
    p.month,
    p.newest_day,
    p.month_closed,
    CAST(p.consumed AS DECIMAL(18, 6)) AS consumed_to_date,
    p.projection AS projected_month_end,
    p.projection > p.budget_amount AS projected_over,
    p.prevent_further_usage,
    CASE WHEN p.newest_month THEN CASE WHEN p.prevent_further_usage THEN coalesce(k.users, 0) ELSE 0 END END
        AS users_blocked
FROM projected AS p
LEFT JOIN blocked AS k USING (enterprise, budget_id);

COMMENT ON VIEW bi.budget_burn IS 'One row per enterprise, budget and month of the bill: the net consumed to date of the spend the budget covers, the month-end projection (linear on the days elapsed), whether it exceeds the budget, and the users blocked (newest month: user-states at their target under prevent_further_usage).';
