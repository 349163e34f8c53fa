-- After a batch, committed or not: its classified copy (insert_webhook_deliveries.sql) goes.
DROP TABLE IF EXISTS webhook_batch_checked;
