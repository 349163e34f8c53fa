-- Seats a listing sent that no table can hold (an assignee id over 64 bits, an object where text
-- goes) are left out alone, with a snapshots.warnings row saying why (endpoint seat_records or
-- enterprise_seat_records), while the listing's total_seats stays as the service said it: how
-- many were left out, per organization (seats) and per enterprise (holders not landed by another
-- grant), so the completeness checks add up and the rest of the snapshot still publishes.
ALTER TABLE snapshots.seat_totals ADD COLUMN left_out_seats BIGINT DEFAULT 0;
ALTER TABLE snapshots.enterprise_seat_totals ADD COLUMN left_out_holders BIGINT DEFAULT 0;
