-- A person's review of a quarantined line. NULL cleared_at: open, the line still needs a look.
-- A cleared line was accepted as the platform serves it (cleared_note says why); it stays
-- cleared when its report is fetched again and the same line is quarantined again.
ALTER TABLE raw.quarantine ADD COLUMN cleared_at TIMESTAMPTZ;
ALTER TABLE raw.quarantine ADD COLUMN cleared_note VARCHAR;
