-- Finality: every fact row says when its report was fetched and whether its day was final
-- then (more than three full UTC days old at the fetch: the service finalizes a day within
-- three, and files exported earlier lag). Rows landed before this migration take the fetch
-- time of the newest raw.report_files row of their level and kind covering their day.
ALTER TABLE core.daily_totals ADD COLUMN fetched_at TIMESTAMPTZ;
ALTER TABLE core.daily_totals ADD COLUMN is_final BOOLEAN;
ALTER TABLE core.user_daily_totals ADD COLUMN fetched_at TIMESTAMPTZ;
ALTER TABLE core.user_daily_totals ADD COLUMN is_final BOOLEAN;
ALTER TABLE core.breakdowns ADD COLUMN fetched_at TIMESTAMPTZ;
ALTER TABLE core.breakdowns ADD COLUMN is_final BOOLEAN;
ALTER TABLE core.agent_activity ADD COLUMN is_final BOOLEAN;
ALTER TABLE core.user_team_days ADD COLUMN is_final BOOLEAN;

CREATE TEMP TABLE fetch_of_day AS
SELECT scope, scope_name, level, report_kind, day, max(fetched_at) AS fetched_at
  FROM (SELECT scope, scope_name, level, report_kind, fetched_at,
               unnest(generate_series(report_start_day, report_end_day, INTERVAL 1 DAY))::DATE AS day
          FROM raw.report_files)
 GROUP BY ALL;
UPDATE core.daily_totals AS t SET fetched_at = f.fetched_at
  FROM fetch_of_day AS f
 WHERE f.level = 'aggregate' AND f.scope = t.scope AND f.scope_name = t.scope_name
   AND f.report_kind = t.report_kind AND f.day = t.day;
UPDATE core.user_daily_totals AS t SET fetched_at = f.fetched_at
  FROM fetch_of_day AS f
 WHERE f.level = 'user' AND f.scope = t.scope AND f.scope_name = t.scope_name
   AND f.report_kind = t.report_kind AND f.day = t.day;
UPDATE core.breakdowns AS t SET fetched_at = f.fetched_at
  FROM (SELECT scope, scope_name, 'aggregate' AS level, day, max(fetched_at) AS fetched_at FROM core.daily_totals GROUP BY ALL
        UNION ALL
        SELECT scope, scope_name, 'user', day, max(fetched_at) FROM core.user_daily_totals GROUP BY ALL) AS f
 WHERE f.level = t.level AND f.scope = t.scope AND f.scope_name = t.scope_name AND f.day = t.day;
DROP TABLE fetch_of_day;

UPDATE core.daily_totals SET is_final = day < CAST(fetched_at AT TIME ZONE 'UTC' AS DATE) - 3;
UPDATE core.user_daily_totals SET is_final = day < CAST(fetched_at AT TIME ZONE 'UTC' AS DATE) - 3;
UPDATE core.breakdowns SET is_final = day < CAST(fetched_at AT TIME ZONE 'UTC' AS DATE) - 3;
UPDATE core.agent_activity SET is_final = day < CAST(fetched_at AT TIME ZONE 'UTC' AS DATE) - 3;
UPDATE core.user_team_days SET is_final = day < CAST(fetched_at AT TIME ZONE 'UTC' AS DATE) - 3;
