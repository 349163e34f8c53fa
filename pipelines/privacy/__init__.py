"""Privacy across the data home: erasing one person (`forget`) and retention (docs/privacy.md)."""

from pipelines.privacy.forget import ErasureResult, Places, ReceiverWriting, forget
from pipelines.privacy.retention import RetentionResult, apply_retention

__all__ = ["ErasureResult", "Places", "ReceiverWriting", "RetentionResult", "apply_retention", "forget"]
