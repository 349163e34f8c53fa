-- People erased from a scope day's user-level records, never whom. An erasure adds the people it
-- removed; a landing dropping erased people on ingest counts those the fetch named, who may be
-- counted already (erased before, and the day fetched again), so it only raises the count.
INSERT INTO core.erased_user_days (scope, scope_name, day, people_erased, recorded_at)
VALUES ($scope, $scope_name, $day, $people, now())
ON CONFLICT (scope, scope_name, day) DO UPDATE SET
    people_erased = CASE WHEN $on_ingest THEN greatest(core.erased_user_days.people_erased, excluded.people_erased)
                         ELSE core.erased_user_days.people_erased + excluded.people_erased END,
    recorded_at = excluded.recorded_at
