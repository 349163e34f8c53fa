"""Governed metrics: one catalog of metric definitions (a module a group, beside its SQL in
sql/metrics/), read from the aggregate tier by default and per person, by pseudonym, only at the
pseudonymous tier (docs/metrics.md). `metrics-etl metrics` and `metrics-etl mcp` serve it; no
caller passes SQL, and no answer leaves out its gaps, provisional days or hidden rows."""

from pipelines.config import MetricsConfig
from pipelines.metrics._model import Answer, Comparison, Dimension, Freshness, Metric, MetricsError, Suppressed
from pipelines.metrics._window import parse_day
from pipelines.metrics.reader import MetricsReader

__all__ = [
    "Answer",
    "Comparison",
    "Dimension",
    "Freshness",
    "Metric",
    "MetricsConfig",
    "MetricsError",
    "MetricsReader",
    "Suppressed",
    "parse_day",
]
