-- bi.cli_customizations_daily
-- Grain: one row per scope, scope_name, day, category (skill, custom_agent, mcp, slash_cmd,
-- plugin) and name. The reports list only the five most used of each category, a user's own in
-- the user report and the scope's in the aggregate report; names a customer defined come grouped
-- as 'other' (slash commands: 'custom'), so `grouped` marks a row that stands for several.
-- interaction_count: the aggregate report's count (invocations of a skill, slash command or
-- plugin skill, starts of a custom agent, connection attempts to an MCP server: not tool calls),
-- NULL when the name was not in the scope's top five that day. users: distinct users whose own
-- top five named it; user_interaction_count their counts summed. distinct_in_scope: how many
-- different ones of the category anyone in the scope used that day (beyond the top five too).
-- A plugin's counts are inside the skill counts: never add the plugin rows to the skill rows.
CREATE OR REPLACE VIEW bi.cli_customizations_daily AS
WITH aggregate_entries AS (
    SELECT scope, scope_name, day, category, name, CAST(sum(interaction_count) AS BIGINT) AS interaction_count
    FROM core.cli_customizations
    WHERE level = 'aggregate'
    GROUP BY ALL
), user_entries AS (
    SELECT scope, scope_name, day, category, name, count(DISTINCT user_id) AS users,
           CAST(sum(interaction_count) AS BIGINT) AS user_interaction_count
    FROM core.cli_customizations
    WHERE level = 'user'
    GROUP BY ALL
), distinct_counts AS (
    -- Not UNPIVOT: DuckDB 2.x stores an UNPIVOT view as SQL that DuckDB 1.5.0 cannot bind, and
    -- BI tools embed 1.x. NULLs left out, as UNPIVOT leaves them out.
    SELECT scope, scope_name, day, category, max(used) AS distinct_in_scope
    FROM (
        SELECT scope, scope_name, day,
               unnest([
                   struct_pack(category := 'skill', used := distinct_skill_use_count),
                   struct_pack(category := 'custom_agent', used := distinct_custom_agent_use_count),
                   struct_pack(category := 'mcp', used := distinct_mcp_use_count),
                   struct_pack(category := 'slash_cmd', used := distinct_slash_cmd_use_count),
                   struct_pack(category := 'plugin', used := distinct_plugin_use_count)
               ], recursive := true)
        FROM core.daily_totals
    )
    WHERE used IS NOT NULL
    GROUP BY ALL
)
SELECT
    scope,
    scope_name,
    day,
    category,
    name,
    name IN ('other', 'custom') AS grouped,
    a.interaction_count,
    coalesce(u.users, 0) AS users,
    u.user_interaction_count,
    d.distinct_in_scope
FROM aggregate_entries AS a
FULL JOIN user_entries AS u USING (scope, scope_name, day, category, name)
LEFT JOIN distinct_counts AS d USING (scope, scope_name, day, category);

COMMENT ON VIEW bi.cli_customizations_daily IS 'One row per scope, day, CLI customization category (skill, custom_agent, mcp, slash_cmd, plugin) and name: the aggregate report''s interaction count (its top five), distinct users whose own top five named it, and how many different ones the scope used. ''other''/''custom'' group names a customer defined, and plugin counts are inside skill counts, never added to them.';
