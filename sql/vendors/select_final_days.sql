-- The days of a vendor's endpoint landed final (a fetch made after the vendor's lag had passed):
-- never fetched again but with --refetch.
SELECT DISTINCT day
  FROM vendors.fetches
 WHERE vendor = $vendor AND endpoint = $endpoint AND status = 'ok' AND is_final
   AND day BETWEEN $start_day AND $end_day
