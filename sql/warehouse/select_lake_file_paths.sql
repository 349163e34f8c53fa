-- Every partition file of the lake as the last publish left it (relative to LAKE_PATH).
SELECT path FROM meta.lake_files
