-- The columns raw.quarantine has here: none before the first run, no cleared_at before 027.
SELECT column_name
  FROM information_schema.columns
 WHERE table_schema = 'raw' AND table_name = 'quarantine';
