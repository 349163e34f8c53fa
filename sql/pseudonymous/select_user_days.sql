-- The lake's day files of core.user_daily_totals as the last publish left them (meta.lake_files):
-- a day of the pseudonymous tier is written again when its file is not the one it was made from.
SELECT path, size, mtime_ns
FROM meta.lake_files
WHERE starts_with(path, 'core.user_daily_totals/day=')
