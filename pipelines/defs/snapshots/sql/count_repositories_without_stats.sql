-- Every repository of a snapshot day has its GraphQL counts, unless a warning says why not.
SELECT count(*) AS failures, string_agg(r.full_name || ' ' || r.snapshot_day, ', ') AS detail
FROM snapshots.repositories AS r
LEFT JOIN snapshots.repository_stats AS s USING (snapshot_day, repository_id)
WHERE s.repository_id IS NULL
  AND NOT EXISTS (SELECT 1 FROM snapshots.warnings AS w
                  WHERE w.snapshot_day = r.snapshot_day AND w.repository = r.full_name);
