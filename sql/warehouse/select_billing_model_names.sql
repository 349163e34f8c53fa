-- The map of bill model names to report model ids as the warehouse holds it (pipelines/transform/billing_models.py).
SELECT billing_model, model_id FROM billing.model_names ORDER BY billing_model;
