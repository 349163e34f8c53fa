-- billing.team_chargeback's days $start_day..$end_day computed again from the warehouse: each
-- day's bill charged to teams (bi.chargeback_between, sql/views/create_chargeback_by_team.sql).
DELETE FROM billing.team_chargeback WHERE day BETWEEN $start_day AND $end_day;
INSERT INTO billing.team_chargeback BY NAME
SELECT * FROM bi.chargeback_between($start_day, $end_day) ORDER BY day;
