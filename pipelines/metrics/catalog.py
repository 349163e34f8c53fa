"""The catalog: every metric group's declarations (a module each, beside its SQL in
sql/metrics/<group>.sql), and the dimensions. A new metric is one declaration in its group."""

from pipelines.metrics import activity, agents, cost, people, teams, vendors
from pipelines.metrics._dimensions import DIMENSIONS
from pipelines.metrics._model import Dimension, Metric

__all__ = ["DIMENSIONS", "GROUPS", "METRICS", "dimension", "metric"]

# Group -> its metrics; sql/metrics/<group>.sql makes the views they read.
GROUPS: dict[str, tuple[Metric, ...]] = {
    "activity": activity.METRICS,
    "agents": agents.METRICS,
    "teams": teams.METRICS,
    "cost": cost.METRICS,
    "people": people.METRICS,
    "vendors": vendors.METRICS,
}
METRICS: dict[str, Metric] = {m.name: m for group in GROUPS.values() for m in group}
_DIMENSIONS: dict[str, Dimension] = {d.name: d for d in DIMENSIONS}


def metric(name: str) -> Metric | None:
    return METRICS.get(name)


def dimension(name: str) -> Dimension | None:
    return _DIMENSIONS.get(name)
