-- core.team_window_users also carries each window's sums over the team's days (from
-- core.team_report_days), so a 28-day period of bi.team_usage_periods reads one row a team and
-- never a year of team-days. A rollup: recreated empty, and rebuilt from the facts by migrate
-- (its definition in sql/rollups/ changed with it).
DROP TABLE core.team_window_users;
CREATE TABLE core.team_window_users (
    scope                            VARCHAR NOT NULL,
    scope_name                       VARCHAR NOT NULL,
    day                              DATE NOT NULL,    -- the window's last day
    team_id                          BIGINT NOT NULL,
    members                          BIGINT NOT NULL,  -- distinct over the window
    active_users                     BIGINT NOT NULL,
    agent_users                      BIGINT NOT NULL,
    listed_days                      BIGINT NOT NULL,  -- days of the window the team was listed
    user_initiated_interaction_count BIGINT,
    code_generation_activity_count   BIGINT,
    code_acceptance_activity_count   BIGINT,
    ai_credits_used                  DOUBLE,
    active_user_days                 BIGINT,           -- sum of each final day's active users
    active_user_days_squares         BIGINT,           -- and of their squares: the change rule's spread
    compared_days                    BIGINT NOT NULL,  -- the scope's final days with team data in the window
    PRIMARY KEY (scope, scope_name, day, team_id)
);
