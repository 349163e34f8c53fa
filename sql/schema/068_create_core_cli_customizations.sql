-- One row per entry of a record's CLI customization arrays (September 2026): the skills, custom
-- agents, MCP servers, slash commands and plugins used most (up to five of each, names a
-- customer defined grouped as 'other', custom slash commands as 'custom'), with the entry's
-- interaction_count: invocations of a skill, slash command or plugin skill, starts of a custom
-- agent, connection attempts to an MCP server. Plugin counts are inside skill counts: never
-- added to them. An omitted array gives no rows, never a zero row.
CREATE TABLE core.cli_customizations (
    scope              VARCHAR NOT NULL,
    scope_name         VARCHAR NOT NULL,
    level              VARCHAR NOT NULL,
    day                DATE NOT NULL,
    user_id            BIGINT,
    user_login         VARCHAR,
    category           VARCHAR NOT NULL,
    name               VARCHAR NOT NULL,
    interaction_count  BIGINT,
    fetched_at         TIMESTAMPTZ NOT NULL,
    is_final           BOOLEAN
);
