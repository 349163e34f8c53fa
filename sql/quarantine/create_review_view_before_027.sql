-- The same, on a warehouse not migrated to 027 yet: no line has been cleared there, so every
-- line is open.
CREATE OR REPLACE TEMP VIEW quarantine_review AS
SELECT *, NULL::TIMESTAMPTZ AS cleared_at, NULL::VARCHAR AS cleared_note FROM raw.quarantine;
