-- Every day a chargeback row is or was on: the bill's, and those billing.team_chargeback holds.
SELECT min(day), max(day)
FROM (SELECT day FROM billing.credit_usage UNION ALL SELECT day FROM billing.team_chargeback);
