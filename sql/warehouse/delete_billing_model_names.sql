-- Before the declared map of bill model names is written again (pipelines/transform/billing_models.py).
DELETE FROM billing.model_names;
