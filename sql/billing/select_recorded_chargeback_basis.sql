SELECT basis FROM meta.chargeback_basis;
