-- The newest day the service is known to have: a billing day it answered, or a usage report's
-- day it served. How far a billing run asks when the service's answers carry no usable Date.
SELECT max(day)
  FROM (SELECT max(day) AS day FROM billing.fetches WHERE status = 'ok'
        UNION ALL
        SELECT max(day) FROM raw.report_fetches);
