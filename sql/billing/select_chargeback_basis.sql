-- What a day's chargeback (bi.chargeback_between) reads besides that day's rows: the newest
-- snapshot of each enterprise's cost centers (their names) and resources, the enterprise teams a
-- Team resource names by their latest slug, and the views' definitions. As one digest of their
-- JSON: another digest means every day is computed again (pipelines/warehouse/chargeback.py).
WITH newest AS (
    SELECT enterprise, max(snapshot_day) AS snapshot_day FROM billing.cost_centers GROUP BY ALL
), centers AS (
    SELECT c.enterprise, c.cost_center_id, c.name
    FROM billing.cost_centers AS c
    JOIN newest USING (enterprise, snapshot_day)
), resources AS (
    SELECT r.enterprise, r.cost_center_id, r.resource_type, r.resource_name
    FROM billing.cost_center_resources AS r
    JOIN newest USING (enterprise, snapshot_day)
), named_teams AS (
    SELECT DISTINCT d.scope_name, d.team_id, d.slug
    FROM core.dim_team AS d
    JOIN resources AS r
      ON r.resource_type = 'Team' AND d.scope = 'enterprise' AND d.scope_name = r.enterprise AND d.slug = r.resource_name
)
SELECT md5(to_json([
    (SELECT to_json(list([enterprise, cost_center_id, name] ORDER BY enterprise, cost_center_id, name)) FROM centers),
    (SELECT to_json(list([enterprise, cost_center_id, resource_type, resource_name]
                         ORDER BY enterprise, cost_center_id, resource_type, resource_name)) FROM resources),
    (SELECT to_json(list([scope_name, CAST(team_id AS VARCHAR), slug] ORDER BY scope_name, team_id, slug))
     FROM named_teams),
    (SELECT to_json(list(checksum ORDER BY checksum)) FROM meta.view_definitions)
]));
