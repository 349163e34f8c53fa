CREATE TABLE core.dim_agent (
    agent_id        VARCHAR PRIMARY KEY,
    agent_name      VARCHAR NOT NULL,
    first_seen_day  DATE NOT NULL,
    last_seen_day   DATE NOT NULL
);
CREATE TABLE core.agent_names (
    agent_id        VARCHAR NOT NULL,
    agent_name      VARCHAR NOT NULL,
    first_seen_day  DATE NOT NULL,
    last_seen_day   DATE NOT NULL,
    PRIMARY KEY (agent_id, agent_name)
);
