-- Which agents do our developers use, the service's own and third-party apps side by side?
-- Per scope and surface over the newest 28 days landed: the days it was used on, its average
-- users a day (distinct users on each day; a person on two surfaces counts on both), and its
-- busiest day. Surfaces a report never carried are left out.
SELECT scope, scope_name, surface_name,
       count(*) FILTER (WHERE users > 0) AS days_used,
       round(avg(users), 1) AS users_a_day,
       max(users) AS most_users_in_a_day
FROM bi.agent_surfaces_daily
WHERE users IS NOT NULL
  AND day > (SELECT max(day) FROM bi.agent_surfaces_daily) - 28
GROUP BY scope, scope_name, surface_name
HAVING max(users) > 0
ORDER BY scope, scope_name, users_a_day DESC;
