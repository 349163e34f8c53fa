SELECT segment, "offset" FROM events.spool_offsets;
