-- Which CLI customizations do our developers use? Over the newest 28 days of each scope: each
-- skill, custom agent, MCP server, slash command and plugin, how many different users named it
-- among their five most used, and its interactions in the scope's own top five ('other' and
-- 'custom' group names a customer defined; plugin counts are inside skill counts).
WITH latest AS (
    SELECT scope, scope_name, max(day) AS last_day FROM bi.cli_customizations_daily GROUP BY ALL
)
SELECT c.scope, c.scope_name, c.category, c.name, c.grouped,
       sum(c.users) AS user_days, CAST(sum(c.interaction_count) AS BIGINT) AS interaction_count,
       count(*) FILTER (WHERE c.interaction_count IS NOT NULL) AS days_in_top_five
FROM bi.cli_customizations_daily AS c
JOIN latest AS l USING (scope, scope_name)
WHERE c.day > l.last_day - 28
GROUP BY ALL
ORDER BY c.scope, c.scope_name, c.category, interaction_count DESC NULLS LAST, user_days DESC, c.name;
