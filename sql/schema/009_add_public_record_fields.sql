-- Fields the public service's records carry beyond the contract's (docs/service-contract.md), as typed
-- columns under their canonical (service dialect) names; each dialect's wire name is mapped in schema.py.
ALTER TABLE core.daily_totals ADD COLUMN daily_active_cli_users BIGINT;
ALTER TABLE core.daily_totals ADD COLUMN daily_active_assistant_code_review_users BIGINT;
ALTER TABLE core.daily_totals ADD COLUMN daily_passive_assistant_code_review_users BIGINT;
ALTER TABLE core.daily_totals ADD COLUMN weekly_active_assistant_code_review_users BIGINT;
ALTER TABLE core.daily_totals ADD COLUMN weekly_passive_assistant_code_review_users BIGINT;
ALTER TABLE core.daily_totals ADD COLUMN monthly_active_assistant_code_review_users BIGINT;
ALTER TABLE core.daily_totals ADD COLUMN monthly_passive_assistant_code_review_users BIGINT;
ALTER TABLE core.daily_totals ADD COLUMN pull_requests_total_merged_created_by_assistant BIGINT;
ALTER TABLE core.daily_totals ADD COLUMN pull_requests_total_merged_reviewed_by_assistant BIGINT;
ALTER TABLE core.daily_totals ADD COLUMN pull_requests_median_minutes_to_merge_assistant_authored DOUBLE;
ALTER TABLE core.daily_totals ADD COLUMN pull_requests_median_minutes_to_merge_assistant_reviewed DOUBLE;
ALTER TABLE core.daily_totals ADD COLUMN pull_requests_total_assistant_suggestions BIGINT;
ALTER TABLE core.daily_totals ADD COLUMN pull_requests_total_assistant_applied_suggestions BIGINT;

-- ai_credits_used: credits to six decimals, an exact sum in BI (DOUBLE sums drift).
ALTER TABLE core.user_daily_totals ADD COLUMN ai_credits_used DECIMAL(18, 6);
ALTER TABLE core.user_daily_totals ADD COLUMN chat_panel_agent_mode BOOLEAN;
ALTER TABLE core.user_daily_totals ADD COLUMN chat_panel_ask_mode BOOLEAN;
ALTER TABLE core.user_daily_totals ADD COLUMN chat_panel_custom_mode BOOLEAN;
ALTER TABLE core.user_daily_totals ADD COLUMN chat_panel_edit_mode BOOLEAN;
ALTER TABLE core.user_daily_totals ADD COLUMN chat_panel_plan_mode BOOLEAN;
ALTER TABLE core.user_daily_totals ADD COLUMN chat_panel_unknown_mode BOOLEAN;
ALTER TABLE core.user_daily_totals ADD COLUMN used_assistant_code_review_active BOOLEAN;
ALTER TABLE core.user_daily_totals ADD COLUMN used_assistant_code_review_passive BOOLEAN;

-- Last known versions: IDE and plugin on kind 'ide' rows, CLI on kind 'cli' rows.
ALTER TABLE core.breakdowns ADD COLUMN ide_version VARCHAR;
ALTER TABLE core.breakdowns ADD COLUMN ide_version_sampled_at TIMESTAMPTZ;
ALTER TABLE core.breakdowns ADD COLUMN plugin VARCHAR;
ALTER TABLE core.breakdowns ADD COLUMN plugin_version VARCHAR;
ALTER TABLE core.breakdowns ADD COLUMN plugin_version_sampled_at TIMESTAMPTZ;
ALTER TABLE core.breakdowns ADD COLUMN cli_version VARCHAR;
ALTER TABLE core.breakdowns ADD COLUMN cli_version_sampled_at TIMESTAMPTZ;
