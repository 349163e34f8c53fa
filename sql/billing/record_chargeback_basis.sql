DELETE FROM meta.chargeback_basis;
INSERT INTO meta.chargeback_basis (basis) VALUES ($basis);
