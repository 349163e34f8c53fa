-- One row per scope, team and day: the team's distinct users (listed, active, with an agent) over
-- the 28 days ending on that day, summed from core.team_reach. A period is one row a team.
CREATE TABLE core.team_window_users (
    scope        VARCHAR NOT NULL,
    scope_name   VARCHAR NOT NULL,
    day          DATE NOT NULL,    -- the window's last day
    team_id      BIGINT NOT NULL,
    members      BIGINT NOT NULL,
    active_users BIGINT NOT NULL,
    agent_users  BIGINT NOT NULL,
    PRIMARY KEY (scope, scope_name, day, team_id)
);
