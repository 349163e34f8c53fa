-- pseudonymous.user_daily of one day: core.user_daily_totals' per-user rows of $day, each row's
-- user id and login replaced by its pseudonym (the registered in-memory table `pseudonyms`,
-- user_id -> pseudonym). Every declared figure, so a field declared later is here too; never
-- `extra` (what the service sent beyond the declarations may name people). The day is the
-- file's partition (its directory), not a column of it.
SELECT u.scope, u.scope_name, p.pseudonym, u.* EXCLUDE (scope, scope_name, user_id, user_login, extra, day)
FROM core.user_daily_totals AS u
JOIN pseudonyms AS p USING (user_id)
WHERE u.day = $day
ORDER BY u.scope, u.scope_name, u.report_kind, p.pseudonym
