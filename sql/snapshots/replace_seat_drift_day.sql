-- Replace the snapshot day's seat drift in raw.field_drift (what the listings' seats carried
-- beyond the declared seat fields) inside the caller's transaction; the day's rows are
-- registered as snapshot_frame.
DELETE FROM raw.field_drift WHERE level = $level AND report_kind = $kind AND day = $day;
INSERT INTO raw.field_drift BY NAME SELECT * FROM snapshot_frame;
