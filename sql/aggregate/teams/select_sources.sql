-- Each day's lake files of the facts a team-day's active members come from (meta.lake_files, as
-- the publish just recorded them): a day of the nested teams is worked out again when they change.
SELECT split_part(split_part(path, '/', 2), '=', 2) AS day,
       string_agg(path || ':' || size || ':' || mtime_ns, ',' ORDER BY path) AS source
FROM meta.lake_files
WHERE (starts_with(path, 'core.user_team_days/day=') OR starts_with(path, 'core.user_daily_totals/day='))
  -- The partition that gives a table its columns with no day holds no day.
  AND TRY_CAST(split_part(split_part(path, '/', 2), '=', 2) AS DATE) IS NOT NULL
GROUP BY ALL
