-- Archive files written again whose former file may still be on disk (a crash between the
-- record and the removal): the erasure removes them before it looks further.
SELECT DISTINCT previous_path FROM meta.archive_lineage WHERE previous_path <> archive_path
