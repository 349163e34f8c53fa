-- Last change of a report's landing transaction, before COMMIT: a line a person cleared stays
-- cleared when the platform still serves it. The report's new open row of the same line (same
-- reason, same text) goes, and the cleared row, with its note, stands for it. Cleared rows
-- whose line is no longer served stay too: they are the record of what was accepted.
-- A cleared line served again at the same place points at the file this fetch archived: the file
-- it pointed at is removed once this landing commits (pipelines/ingest/archive_files.py).
UPDATE raw.quarantine AS accepted
   SET archive_path = fresh.archive_path, link = fresh.link
  FROM raw.quarantine AS fresh
 WHERE fresh.scope = $scope AND fresh.scope_name = $scope_name AND fresh.report_kind = $report_kind
   AND fresh.level = $level AND fresh.report_start_day = $start_day AND fresh.report_end_day = $end_day
   AND fresh.cleared_at IS NULL AND accepted.cleared_at IS NOT NULL
   AND accepted.scope = fresh.scope AND accepted.scope_name = fresh.scope_name
   AND accepted.report_kind = fresh.report_kind AND accepted.level = fresh.level
   AND accepted.report_start_day = fresh.report_start_day AND accepted.report_end_day = fresh.report_end_day
   AND accepted.file_index = fresh.file_index AND accepted.line_number = fresh.line_number
   AND accepted.reason = fresh.reason AND accepted.line_text IS NOT DISTINCT FROM fresh.line_text;
DELETE FROM raw.quarantine AS fresh
 WHERE fresh.scope = $scope AND fresh.scope_name = $scope_name AND fresh.report_kind = $report_kind
   AND fresh.level = $level AND fresh.report_start_day = $start_day AND fresh.report_end_day = $end_day
   AND fresh.cleared_at IS NULL
   AND EXISTS (
       SELECT 1 FROM raw.quarantine AS accepted
        WHERE accepted.scope = fresh.scope AND accepted.scope_name = fresh.scope_name
          AND accepted.report_kind = fresh.report_kind AND accepted.level = fresh.level
          AND accepted.report_start_day = fresh.report_start_day AND accepted.report_end_day = fresh.report_end_day
          AND accepted.cleared_at IS NOT NULL
          AND accepted.reason = fresh.reason AND accepted.line_text IS NOT DISTINCT FROM fresh.line_text);
