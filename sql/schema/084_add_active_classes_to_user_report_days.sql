-- core.user_report_days counts each day's user lines by what made them active, so
-- bi.reconciliation can tell the service's daily_active_users from ours class by class
-- (sql/rollups/user_report_days.sql says what each class is). A rollup: migrate rebuilds it,
-- as its definition in sql/rollups/ changed with it.
ALTER TABLE core.user_report_days ADD COLUMN any_surface_active_users BIGINT DEFAULT 0;
ALTER TABLE core.user_report_days ADD COLUMN ide_users BIGINT DEFAULT 0;
ALTER TABLE core.user_report_days ADD COLUMN app_only_users BIGINT DEFAULT 0;
ALTER TABLE core.user_report_days ADD COLUMN cli_only_users BIGINT DEFAULT 0;
ALTER TABLE core.user_report_days ADD COLUMN other_surface_only_users BIGINT DEFAULT 0;
ALTER TABLE core.user_report_days ADD COLUMN counts_only_users BIGINT DEFAULT 0;
ALTER TABLE core.user_report_days ADD COLUMN inactive_users BIGINT DEFAULT 0;
