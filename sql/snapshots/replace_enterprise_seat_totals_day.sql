-- Replace one snapshot day of snapshots.enterprise_seat_totals inside the caller's transaction;
-- the day's rows are registered as snapshot_frame.
DELETE FROM snapshots.enterprise_seat_totals WHERE snapshot_day = $day;
INSERT INTO snapshots.enterprise_seat_totals BY NAME SELECT * FROM snapshot_frame;
