-- The frame is registered as snapshot_frame for the length of the transaction.
INSERT INTO snapshots.issues BY NAME SELECT * FROM snapshot_frame;
