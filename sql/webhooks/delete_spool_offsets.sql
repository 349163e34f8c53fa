-- The positions of segments pruned from the spool.
DELETE FROM events.spool_offsets WHERE list_contains(CAST($segments AS VARCHAR[]), segment);
