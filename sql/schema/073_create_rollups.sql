-- Small daily rollups of the user-level facts, so a bi view costs what its days and scopes
-- cost, never what its users cost. Each is declared in the table catalog (writer "rollup"),
-- computed by sql/rollups/<table>.sql and refreshed for a report's days inside its landing
-- transaction (pipelines/warehouse/rollups.py); rebuilt whole when those files change.

-- One row per scope and day of a user-level report: its users and sums.
CREATE TABLE core.user_report_days (
    scope                            VARCHAR NOT NULL,
    scope_name                       VARCHAR NOT NULL,
    day                              DATE NOT NULL,
    user_records                     BIGINT NOT NULL,
    active_users                     BIGINT NOT NULL,  -- interactions or code generation that day
    users_with_agent_array           BIGINT NOT NULL,
    agent_breakdown_present          BOOLEAN,
    user_initiated_interaction_count BIGINT,
    code_generation_activity_count   BIGINT,
    code_acceptance_activity_count   BIGINT,
    loc_suggested_to_add_sum         BIGINT,
    loc_suggested_to_delete_sum      BIGINT,
    loc_added_sum                    BIGINT,
    loc_deleted_sum                  BIGINT,
    cloud_agent_users                BIGINT NOT NULL,
    cloud_agent_carried              BOOLEAN NOT NULL,  -- some record carried the field
    app_users                        BIGINT NOT NULL,
    app_carried                      BOOLEAN NOT NULL,
    vscode_agent_users               BIGINT NOT NULL,
    vscode_agent_carried             BOOLEAN NOT NULL,
    cli_users                        BIGINT NOT NULL,
    cli_carried                      BOOLEAN NOT NULL,
    is_final                         BOOLEAN,
    fetched_at                       TIMESTAMPTZ,
    PRIMARY KEY (scope, scope_name, day)
);

-- One row per scope, day and listed team: its members' activity that day (1-day reports only).
CREATE TABLE core.team_report_days (
    scope                            VARCHAR NOT NULL,
    scope_name                       VARCHAR NOT NULL,
    day                              DATE NOT NULL,
    team_id                          BIGINT NOT NULL,
    members                          BIGINT NOT NULL,  -- listed that day
    reported_users                   BIGINT NOT NULL,  -- of them, in the day's user report
    active_users                     BIGINT NOT NULL,
    agent_users                      BIGINT NOT NULL,
    user_initiated_interaction_count BIGINT,
    code_generation_activity_count   BIGINT,
    code_acceptance_activity_count   BIGINT,
    loc_suggested_to_add_sum         BIGINT,
    loc_added_sum                    BIGINT,
    loc_deleted_sum                  BIGINT,
    ai_credits_used                  DOUBLE,
    is_final                         BOOLEAN,          -- of the members' user rows (NULL: none reported)
    membership_final                 BOOLEAN NOT NULL, -- the memberships were fetched after the day was final
    PRIMARY KEY (scope, scope_name, day, team_id)
);

-- What a period's DISTINCT users are summed from without reading a user row: per day and key,
-- the users counted that day by how many days back they were last counted (gap_days 1..27),
-- 28 meaning four weeks or more, or never. A period starting on day s holds each user once, on
-- their first day in it: the rows of its days d with gap_days > d - s.
CREATE TABLE core.agent_reach (
    scope       VARCHAR NOT NULL,
    scope_name  VARCHAR NOT NULL,
    day         DATE NOT NULL,
    agent_id    VARCHAR NOT NULL,
    gap_days    INTEGER NOT NULL,
    users       BIGINT NOT NULL,
    PRIMARY KEY (scope, scope_name, day, agent_id, gap_days)
);
-- The same per team, for three kinds of user: 'member' (listed), 'active', 'agent'.
CREATE TABLE core.team_reach (
    scope       VARCHAR NOT NULL,
    scope_name  VARCHAR NOT NULL,
    day         DATE NOT NULL,
    team_id     BIGINT NOT NULL,
    counted     VARCHAR NOT NULL,
    gap_days    INTEGER NOT NULL,
    users       BIGINT NOT NULL,
    PRIMARY KEY (scope, scope_name, day, team_id, counted, gap_days)
);

-- The agent label days also count a day's users and sessions per agent.
ALTER TABLE core.agent_days ADD COLUMN agent_users BIGINT;
ALTER TABLE core.agent_days ADD COLUMN session_count BIGINT;
UPDATE core.agent_days AS d
   SET agent_users = a.agent_users, session_count = a.session_count
  FROM (SELECT scope, scope_name, level, day, agent_id, agent_name,
               CASE WHEN any_value(level) = 'user' THEN count(DISTINCT user_id) END AS agent_users,
               CAST(sum(session_count) AS BIGINT) AS session_count
          FROM core.agent_activity GROUP BY ALL) AS a
 WHERE d.scope = a.scope AND d.scope_name = a.scope_name AND d.level = a.level AND d.day = a.day
   AND d.agent_id = a.agent_id AND d.agent_name = a.agent_name;

-- The checksum of sql/rollups/ the rollups were last built with: a change rebuilds them.
CREATE TABLE meta.rollup_definitions (checksum VARCHAR NOT NULL);
