-- One declared bill model name and the usage reports' model id (pipelines/transform/billing_models.py).
INSERT INTO billing.model_names (billing_model, model_id) VALUES ($billing_model, $model_id);
