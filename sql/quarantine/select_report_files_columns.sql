-- The columns raw.report_files has here: no repeated_lines before migration 079.
SELECT column_name
  FROM information_schema.columns
 WHERE table_schema = 'raw' AND table_name = 'report_files';
