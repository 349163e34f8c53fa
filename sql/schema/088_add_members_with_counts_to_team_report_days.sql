-- A team-day's people behind its sums, beside its active users (any surface): the aggregate
-- tier judges its sums by them (members active only where lines carry no counts add nothing).
-- The rollups are rebuilt from the facts when their SQL changes, which fills it.
ALTER TABLE core.team_report_days ADD COLUMN members_with_counts BIGINT;
