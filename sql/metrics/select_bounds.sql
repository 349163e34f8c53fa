-- The tier's first and newest reported day, and the newest day of its 28-day periods (they
-- count back from it, as bi.agent_usage_periods' do).
SELECT min(day), max(day), coalesce((SELECT max(period_end) FROM aggregate.scope_periods), max(day))
FROM metrics_calendar
