-- Seats of people erased by `metrics-etl forget` are left out of a snapshot (docs/privacy.md)
-- while the listing's total_seats stays as the service said it: how many were left out, per
-- organization (seat rows) and per enterprise (holders), so the completeness checks add up.
ALTER TABLE snapshots.seat_totals ADD COLUMN erased_seats BIGINT DEFAULT 0;
ALTER TABLE snapshots.enterprise_seat_totals ADD COLUMN erased_holders BIGINT DEFAULT 0;
