-- Before the operator's identity file is written again whole: every line last read goes, and the
-- lake partitions of its read days (and of this one) are to be written again.
INSERT INTO meta.lake_changes (table_name, day)
SELECT DISTINCT 'vendors.operator_identities', read_day FROM vendors.operator_identities
UNION
SELECT 'vendors.operator_identities', CAST($read_day AS DATE);
DELETE FROM vendors.operator_identities;
