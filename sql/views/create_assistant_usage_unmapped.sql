-- bi.assistant_unmapped_people: the vendors' people no service login is known for (neither the
-- operator's file nor a seat's public email names theirs), counted, never named: one row per
-- vendor with such people, the days they span, how many people (distinct emails), their days,
-- and the vendor's API keys (Claude Code's use by key, no person). They stay in
-- bi.assistant_usage_daily under their email (scope `vendor`, login NULL); the vendors' run says
-- how many of its days' people are so. Aggregate in form, but about few people: full tier only.
CREATE OR REPLACE VIEW bi.assistant_unmapped_people AS
SELECT
    vendor,
    min(day) AS first_day,
    max(day) AS last_day,
    count(DISTINCT person) FILTER (WHERE person_kind = 'email') AS people,
    count(*) FILTER (WHERE person_kind = 'email') AS person_days,
    count(DISTINCT person) FILTER (WHERE person_kind = 'api_key') AS api_keys
FROM bi.assistant_usage_daily
WHERE source_kind = 'vendor' AND person_kind <> 'login'
GROUP BY vendor;

COMMENT ON VIEW bi.assistant_unmapped_people IS 'Full tier. One row per vendor: its people no service login is known for (people, person_days: they stay in bi.assistant_usage_daily under their email, login NULL), the days they span, and its API keys.';
