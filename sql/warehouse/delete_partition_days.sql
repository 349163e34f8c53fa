-- A landing's delete from {table}: every row of its partition days {day} between $start_day and
-- $end_day (a vendor's days fetched again: one account per vendor, so the day is all of it).
DELETE FROM {table} WHERE "{day}" BETWEEN $start_day AND $end_day;
