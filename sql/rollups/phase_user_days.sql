-- core.phase_user_days for a scope's days $start_day..$end_day, from core.user_daily_totals.
INSERT INTO core.phase_user_days BY NAME
SELECT scope, scope_name, day, ai_adoption_phase_phase_number AS phase_number, count(*) AS users
  FROM core.user_daily_totals
 WHERE scope = $scope AND scope_name = $scope_name AND day BETWEEN $start_day AND $end_day
   AND ai_adoption_phase_phase_number IS NOT NULL
 GROUP BY ALL;
