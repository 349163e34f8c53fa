-- The vendors' run note: per vendor, its people of these days no service login is known for
-- (bi.assistant_usage_daily keeps them under their email, login NULL).
SELECT vendor, min(day), max(day), count(DISTINCT person)
  FROM bi.assistant_usage_daily
 WHERE source_kind = 'vendor' AND person_kind = 'email' AND day BETWEEN $first_day AND $last_day
 GROUP BY vendor
 ORDER BY vendor
