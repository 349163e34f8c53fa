SELECT
    (SELECT count(*) FROM stage_daily_totals),
    (SELECT count(*) FROM stage_user_daily_totals),
    (SELECT count(*) FROM stage_breakdowns),
    (SELECT count(*) FROM stage_agent_activity),
    (SELECT count(*) FROM stage_quarantine);
