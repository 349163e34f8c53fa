-- _land_batch is the report's fetch, one row per day it carried (pipelines.transform.fetches).
-- A fetch landed twice in the same second (the service's Date header has whole seconds) is one
-- fetch: its rows are replaced.
INSERT OR REPLACE INTO raw.report_fetches BY NAME SELECT * FROM _land_batch;
