-- An archive file written again without some lines: its rows point at the new file, and its
-- lineage (where it was, both sha256) is recorded.
UPDATE raw.report_files
   SET archive_path = $path, sha256 = $checksum, bytes = $size
 WHERE archive_path = $previous_path;
UPDATE raw.quarantine SET archive_path = $path WHERE archive_path = $previous_path;
UPDATE meta.archive_lineage SET archive_path = $path WHERE archive_path = $previous_path;
INSERT INTO meta.archive_lineage
VALUES ($path, $previous_path, $previous_checksum, $checksum, $lines_removed, $reason, now())
