-- _land_batch is the Arrow table of the day's memberships, registered by the caller.
INSERT INTO core.user_team_days BY NAME SELECT * FROM _land_batch;
