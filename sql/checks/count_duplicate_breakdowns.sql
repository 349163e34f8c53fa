-- Grain of core.breakdowns: scope, level, day, user and the breakdown's kind and keys.
SELECT count(*) AS failures, string_agg(scope_name || ' ' || day || ' ' || kind, ', ') AS detail
FROM (
    SELECT scope, scope_name, level, day, user_id, kind, ide, feature, language, model
    FROM core.breakdowns GROUP BY ALL HAVING count(*) > 1
);
