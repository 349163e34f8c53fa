-- What the review commands read: raw.quarantine with its review columns (migration 027).
CREATE OR REPLACE TEMP VIEW quarantine_review AS
SELECT * FROM raw.quarantine;
