-- After a publish, in one transaction: the partition files it wrote or kept (the registered
-- published_lake_files) replace what was recorded of every file it touched ($whole: of all),
-- and the changes it covered are forgotten.
DELETE FROM meta.lake_files WHERE $whole OR path IN (SELECT unnest(CAST($paths AS VARCHAR[])));
DELETE FROM meta.lake_files WHERE path IN (SELECT path FROM published_lake_files);
INSERT INTO meta.lake_files SELECT path, size, mtime_ns FROM published_lake_files;
DELETE FROM meta.lake_changes;
