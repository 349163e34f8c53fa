-- The rows of the vendor metrics (pipelines/metrics/vendors.py), from the aggregate tier: each coding
-- assistant source (service, agent:<id>, claude_code, cursor) per scope and day (vendor_daily) or
-- 28-day period (vendor_periods), an agent app's person-day beside its vendor's own row counted in
-- the vendor's; people no login is known for under scope `vendor`. A row the tier hid under k kept
-- with suppressed = true and every figure NULL. Each measure's views hold the sources that tell it
-- (bi.assistant_usage_daily), so a source without it is no row of its answer, neither NULL nor zero.
CREATE OR REPLACE TEMP VIEW metrics_vendor_daily AS
SELECT scope, scope_name, day, source, suppressed, active_people
FROM aggregate.vendor_daily;

CREATE OR REPLACE TEMP VIEW metrics_vendor_periods AS
SELECT scope, scope_name, period_start, period_end, source, suppressed, active_people
FROM aggregate.vendor_periods;

CREATE OR REPLACE TEMP VIEW metrics_vendor_requests_daily AS
SELECT scope, scope_name, day, source, suppressed, requests
FROM aggregate.vendor_daily WHERE source IN ('service', 'cursor');

CREATE OR REPLACE TEMP VIEW metrics_vendor_requests_periods AS
SELECT scope, scope_name, period_start, period_end, source, suppressed, requests
FROM aggregate.vendor_periods WHERE source IN ('service', 'cursor');

CREATE OR REPLACE TEMP VIEW metrics_vendor_sessions_daily AS
SELECT scope, scope_name, day, source, suppressed, sessions
FROM aggregate.vendor_daily WHERE source = 'claude_code';

CREATE OR REPLACE TEMP VIEW metrics_vendor_sessions_periods AS
SELECT scope, scope_name, period_start, period_end, source, suppressed, sessions
FROM aggregate.vendor_periods WHERE source = 'claude_code';

CREATE OR REPLACE TEMP VIEW metrics_vendor_lines_daily AS
SELECT scope, scope_name, day, source, suppressed, lines_added
FROM aggregate.vendor_daily WHERE source IN ('service', 'claude_code', 'cursor');

CREATE OR REPLACE TEMP VIEW metrics_vendor_lines_periods AS
SELECT scope, scope_name, period_start, period_end, source, suppressed, lines_added
FROM aggregate.vendor_periods WHERE source IN ('service', 'claude_code', 'cursor');

CREATE OR REPLACE TEMP VIEW metrics_vendor_accepted_daily AS
SELECT scope, scope_name, day, source, suppressed, lines_accepted
FROM aggregate.vendor_daily WHERE source = 'cursor';

CREATE OR REPLACE TEMP VIEW metrics_vendor_accepted_periods AS
SELECT scope, scope_name, period_start, period_end, source, suppressed, lines_accepted
FROM aggregate.vendor_periods WHERE source = 'cursor';

-- Each vendor's own cost (DECIMAL dollars): the service's bill and an agent app's are the scope's,
-- never in these rows (the tier shows no whole bill). A shown source-day on which no cost of the
-- kind was placed is no row (Cursor's spend lands on its read days), a hidden one stays.
CREATE OR REPLACE TEMP VIEW metrics_vendor_cost_daily AS
SELECT scope, scope_name, day, source, suppressed, cost_usd
FROM aggregate.vendor_daily WHERE source IN ('claude_code', 'cursor') AND (suppressed OR cost_usd IS NOT NULL);

CREATE OR REPLACE TEMP VIEW metrics_vendor_cost_periods AS
SELECT scope, scope_name, period_start, period_end, source, suppressed, cost_usd
FROM aggregate.vendor_periods WHERE source IN ('claude_code', 'cursor') AND (suppressed OR cost_usd IS NOT NULL);

CREATE OR REPLACE TEMP VIEW metrics_vendor_subscription_estimate_daily AS
SELECT scope, scope_name, day, source, suppressed, subscription_estimate_usd
FROM aggregate.vendor_daily WHERE source = 'claude_code' AND (suppressed OR subscription_estimate_usd IS NOT NULL);

CREATE OR REPLACE TEMP VIEW metrics_vendor_subscription_estimate_periods AS
SELECT scope, scope_name, period_start, period_end, source, suppressed, subscription_estimate_usd
FROM aggregate.vendor_periods
WHERE source = 'claude_code' AND (suppressed OR subscription_estimate_usd IS NOT NULL);
