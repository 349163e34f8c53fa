"""The identifiers sql/metrics/ templates take, from a metric's declaration and the dimensions
asked for: never a value (those are bound), only its own columns and SQL."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from pipelines.metrics._model import Metric


@dataclass(frozen=True)
class Shape:
    """The answer's columns: scope, its day or period, the dimensions split by (with labels), the figure."""

    metric: Metric
    keys: tuple[str, ...]  # dimension names, in the declaration's order
    labelled: frozenset[str]

    @property
    def at(self) -> str:
        return "day" if self.metric.grain == "day" else "period_end"

    @property
    def time_columns(self) -> tuple[str, ...]:
        return ("day",) if self.metric.grain == "day" else ("period_start", "period_end")

    @property
    def key_columns(self) -> tuple[str, ...]:
        return tuple(c for key in self.keys for c in ((key, f"{key}_name") if key in self.labelled else (key,)))

    @property
    def columns(self) -> tuple[str, ...]:
        """As the template makes them; the figure is `value` there and the metric's name here."""
        return ("scope", "scope_name", *self.time_columns, *self.key_columns, self.metric.name, "suppressed")

    def identifiers(self, filters: Mapping[str, str]) -> dict[str, str]:
        keys = "".join(
            f', "{key}"' + (f', arg_max("{key}_name", {self.at}) AS "{key}_name"' if key in self.labelled else "")
            for key in self.keys
        )
        # An id or its label; ids compared as text (a team id is a number, its filter a word).
        conditions = "".join(
            f' AND (CAST("{key}" AS VARCHAR) = $filter_{key}'
            + (f' OR "{key}_name" = $filter_{key})' if key in self.labelled else ")")
            for key in filters
        )
        return {
            "source": self.metric.source,
            "time": ", ".join(self.time_columns),
            "at": self.at,
            "keys": keys,
            "measure": self.metric.measure,
            "known": self.metric.known or f"({self.metric.measure}) IS NOT NULL",
            "filters": conditions,
        }

    def change_identifiers(self) -> dict[str, str]:
        groups = "".join(
            f', "{key}"' + (f', arg_max("{key}_name", day) AS "{key}_name"' if key in self.labelled else "")
            for key in self.keys
        )
        return {
            "groups": groups,
            "names": "".join(f', g."{column}"' for column in self.key_columns),
            "match": "".join(f' AND a."{key}" IS NOT DISTINCT FROM g."{key}"' for key in self.keys),
        }


def split(metric: Metric, group_by: Sequence[str], filters: Mapping[str, str]) -> tuple[str, ...]:
    """The dimensions an answer is split by: the declaration's own, those grouped by and those
    filtered on (a filtered dimension names its value in each row), in the declaration's order."""
    wanted = {*metric.split_by, *group_by, *filters} - {"scope"}
    return tuple(d for d in metric.dimensions if d in wanted)
