-- Every lake file as the last publish left it: its size and modification time. A publish
-- compares the lake with this list, so a file changed or damaged outside the pipeline, or a
-- lake published from another warehouse (a restored backup, a rebuilt file), is written again
-- from this warehouse instead of being served.
CREATE TABLE meta.lake_files (
    path      VARCHAR PRIMARY KEY,  -- relative to LAKE_PATH: <table>/<column>=<value>/data.parquet
    size      BIGINT NOT NULL,
    mtime_ns  BIGINT NOT NULL
);
