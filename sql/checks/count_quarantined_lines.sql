-- Lines of report files that could not be landed; each needs a look before it is trusted.
SELECT count(*) AS failures,
       string_agg(DISTINCT archive_path || ' line ' || line_number || ': ' || reason, ' | ') AS detail
FROM raw.quarantine;
