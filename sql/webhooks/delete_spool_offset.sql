DELETE FROM events.spool_offsets WHERE segment = ?;
