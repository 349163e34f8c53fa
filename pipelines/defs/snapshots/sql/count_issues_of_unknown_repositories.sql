-- Issues join to the repository snapshot of the same day by the stable numeric id.
SELECT count(*) AS failures, string_agg(DISTINCT i.repository_full_name || ' ' || i.snapshot_day, ', ') AS detail
FROM snapshots.issues AS i
ANTI JOIN snapshots.repositories AS r USING (snapshot_day, repository_id);
