-- In the serving database, bi.chargeback_by_team's rows are those the publish computed from the
-- warehouse (billing.team_chargeback, pipelines/warehouse/chargeback.py), not every day allocated
-- again on each read: the view (sql/views/create_chargeback_by_team.sql) reads them through this.
CREATE OR REPLACE MACRO bi.chargeback_rows() AS TABLE
SELECT scope, scope_name, day, team_scope, team_scope_name, team_id, rule, reason, net_amount
FROM billing.team_chargeback;
