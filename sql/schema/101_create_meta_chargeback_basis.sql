-- What every day of billing.team_chargeback was last computed with besides that day's rows
-- (sql/billing/select_chargeback_basis.sql): a publish finding another computes every day again.
CREATE TABLE meta.chargeback_basis (basis VARCHAR NOT NULL);
