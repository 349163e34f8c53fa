-- The Cost section's budgets: each budget of each enterprise's newest month in bi.budget_burn,
-- those projected over first, then by how much of the budget the month end would use. A user's
-- budget is told by its id, never its login (the summary reaches logs).
WITH newest AS (
    SELECT enterprise, max(month) AS month FROM bi.budget_burn GROUP BY ALL
)
SELECT b.enterprise, b.budget_id, b.budget_type, b.budget_scope,
       CASE WHEN b.budget_scope IN ('enterprise', 'organization', 'repository', 'cost_center', 'multi_user_customer')
            THEN b.budget_entity_name END AS budget_entity_name,
       b.budget_product_sku,
       b.budget_amount, b.month, b.consumed_to_date, b.projected_month_end, b.projected_over,
       b.prevent_further_usage, b.users_blocked
FROM bi.budget_burn AS b
JOIN newest AS n USING (enterprise, month)
ORDER BY b.enterprise, b.projected_over DESC,
         b.projected_month_end / nullif(b.budget_amount, 0) DESC NULLS LAST, b.budget_id;
