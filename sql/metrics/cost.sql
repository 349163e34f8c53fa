-- The rows of the cost metrics (pipelines/metrics/cost.py), from the aggregate tier: each cost
-- center's net (cost_center_periods) and each team's net charged back (team_periods_cost) per
-- 28-day period; a row the tier hid kept with suppressed = true and its figure NULL.
CREATE OR REPLACE TEMP VIEW metrics_cost_center_periods AS
SELECT scope, scope_name, period_start, period_end, cost_center_id AS cost_center, cost_center_name, suppressed,
       net_amount
FROM aggregate.cost_center_periods;

CREATE OR REPLACE TEMP VIEW metrics_team_charge_periods AS
SELECT scope, scope_name, period_start, period_end, team_id AS team, team_slug AS team_name, suppressed, net_amount
FROM aggregate.team_periods_cost;
