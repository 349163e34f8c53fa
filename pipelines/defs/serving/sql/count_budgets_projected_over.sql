-- The budgets of each enterprise's newest month in bi.budget_burn that its month end is projected
-- to exceed: a warning, told once when it turns on and once when it clears. The detail names
-- each budget but a user's (a check's detail reaches logs and alerts, which name nobody): those
-- are counted.
WITH newest AS (
    SELECT enterprise, max(month) AS month FROM bi.budget_burn GROUP BY ALL
), over AS (
    SELECT b.*, b.budget_scope IN ('enterprise', 'organization', 'repository', 'cost_center', 'multi_user_customer')
               AS named
    FROM bi.budget_burn AS b
    JOIN newest AS n USING (enterprise, month)
    WHERE b.projected_over
), said AS (
    SELECT enterprise || ' ' || replace(budget_scope, '_', ' ') || ' ' || coalesce(budget_entity_name, budget_id)
               || coalesce(' ' || budget_product_sku, '') || ': $'
               || format('{:,.2f}', round(projected_month_end, 2)) || ' projected at month end against $'
               || format('{:,.2f}', round(budget_amount, 2))
               || CASE WHEN prevent_further_usage THEN ', stops usage at it' ELSE '' END
               || CASE WHEN users_blocked > 0 THEN ', ' || users_blocked || ' users blocked' ELSE '' END AS line
    FROM over
    WHERE named
    UNION ALL
    SELECT enterprise || ': ' || count(*) || CASE WHEN count(*) = 1 THEN ' user budget' ELSE ' user budgets' END AS line
    FROM over
    WHERE NOT named
    GROUP BY enterprise
)
SELECT (SELECT count(*) FROM over) AS failures, string_agg(line, ' | ' ORDER BY line) AS detail
FROM said;
