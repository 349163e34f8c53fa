"""The bill's model names against the usage reports' model ids: declared once, here.

The service's billing answers name a model as its model picker shows it ("Claude Sonnet 4.5",
"Auto: Claude Haiku 4.5"); its usage reports name it by id ("claude-sonnet-4.5"), and an
automatic choice by the id `unknown` (the report cannot say which model the picker chose). So
the two are joined through this map, never by rewriting one name into the other. `migrate`
writes it into billing.model_names (pipelines/warehouse/billing_model_names.py): bi.cost_daily
gives each bill line its report model id from there, and bi.billing_model_drift lists every
billed name the map lacks (a new model the service bills), for the run summary to print. A new
model is one more entry here.
"""

from __future__ import annotations

__all__ = ["BILLING_MODELS"]

# Billing model name -> the usage reports' model id (None: billed only, no usage report names
# it, such as the coding agent's model).
BILLING_MODELS: dict[str, str | None] = {
    "GPT-4.1": "gpt-4.1",
    "GPT-5 mini": "gpt-5-mini",
    "GPT-5": "gpt-5",
    "GPT-5-Codex": "gpt-5-codex",
    "GPT-5.2": None,
    "Claude Sonnet 4.5": "claude-sonnet-4.5",
    "Claude Haiku 4.5": "claude-haiku-4.5",
    "Gemini 2.5 Pro": "gemini-2.5-pro",
    "Auto: Claude Haiku 4.5": "unknown",
}
