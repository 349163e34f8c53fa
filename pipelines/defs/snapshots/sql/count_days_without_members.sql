-- An organization always has at least one member (its owner): an empty snapshot day means the
-- member list was not visible to the token.
SELECT count(*) AS failures, string_agg(CAST(r.snapshot_day AS VARCHAR), ', ') AS detail
FROM (SELECT DISTINCT snapshot_day FROM snapshots.repositories) AS r
ANTI JOIN snapshots.org_members AS m USING (snapshot_day);
