-- Extension (docs/extensions.md): a team member of a day is a user of that day's 1-day
-- user-level report. Members without one are left out of team metrics (the inner join): named
-- here, as the two reports of the day disagree.
-- Over a slice: one report's scope and days inside its transaction, or (a NULL scope and the
-- widest days) the whole history in the audit.
-- The detail counts them per team and day: a check's line names no person (docs/privacy.md).
SELECT coalesce(sum(members), 0) AS failures,
       string_agg(concat_ws(' ', scope_name, day, slug, members, 'without a user record'), ', ' ORDER BY day, slug)
           AS detail
FROM (
    SELECT t.scope_name, t.day, t.slug, count(*) AS members
    FROM core.user_team_days AS t
    WHERE t.day BETWEEN $start_day AND $end_day
      AND ($scope IS NULL OR (t.scope = $scope AND t.scope_name = $scope_name))
      AND NOT EXISTS (
          SELECT 1 FROM core.user_daily_totals AS u
           WHERE u.scope = t.scope AND u.scope_name = t.scope_name AND u.day = t.day
             AND u.user_id = t.user_id AND u.report_kind = '1-day')
    GROUP BY ALL
);
