"""MetricsReader: the catalog's metrics answered from the tier's serving database(s) alone.

The aggregate tier by default (nobody named, no group under k); the per-person metrics only at
the pseudonymous tier, by pseudonym. Each question opens the tiers afresh (`_connection`), is
bounded by the row and time limits of its MetricsConfig, and every mistake in it is one line
(MetricsError) naming what is accepted.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import date
from types import TracebackType
from typing import Any

from pipelines.config import ENV_VARS, MetricsConfig
from pipelines.metrics._compare import comparison_rows, group, within
from pipelines.metrics._connection import Question, check_tiers, deadline, open_tiers, published_at, tier_paths
from pipelines.metrics._model import (
    Answer,
    Comparison,
    Dimension,
    Freshness,
    Metric,
    MetricsError,
    Suppressed,
    accepted,
)
from pipelines.metrics._query import Shape, split
from pipelines.metrics._window import Bounds, check_periods, parse_scope, period_of, window
from pipelines.metrics.catalog import DIMENSIONS, GROUPS, METRICS

_RULE = (
    "the page's change rule (sql/views/_change_rule.sql): the rate a day over each period's compared days "
    "(final days with data), called grown or shrunk only when the difference is beyond the day-to-day noise "
    "(95% interval), new, gone or steady otherwise, and not called on fewer than 14 compared days a period"
)
_PER_USER = (
    "per-user metrics need the pseudonymous tier: set {variable}=pseudonymous (publishes write that tier when "
    "{key} is set); they answer by pseudonym, never by login or id"
)


class MetricsReader:
    """`with MetricsReader(config) as reader:` the catalog's metrics of the config's tier."""

    def __init__(self, config: MetricsConfig) -> None:
        self.config = config
        tier_paths(config)

    def __enter__(self) -> MetricsReader:
        check_tiers(self.config)
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        return None

    def _served(self, tier: str) -> bool:
        return tier == "aggregate" or self.config.tier == "pseudonymous"

    def metrics(self) -> list[Metric]:
        return [m for m in METRICS.values() if self._served(m.tier)]

    def dimensions(self) -> list[Dimension]:
        return [d for d in DIMENSIONS if self._served(d.tier)]

    def describe(self, name: str) -> Metric:
        metric = METRICS.get(name)
        if metric is None:
            raise MetricsError(f"unknown metric {name!r}: accepted: {accepted([m.name for m in self.metrics()])}")
        if not self._served(metric.tier):
            raise MetricsError(f"{name} is a per-person metric: {_per_user()}")
        return metric

    def _check_dimensions(self, metric: Metric, names: Sequence[str]) -> None:
        known = {d.name: d for d in DIMENSIONS}
        for name in names:
            dimension = known.get(name)
            if dimension is None:
                raise MetricsError(
                    f"unknown dimension {name!r}: accepted: {accepted([d.name for d in self.dimensions()])}"
                )
            if not self._served(dimension.tier):
                raise MetricsError(f"the dimension {name} is a person: {_per_user()}")
            if name not in metric.dimensions:
                raise MetricsError(
                    f"{metric.name} cannot be grouped or filtered by {name}: accepted: "
                    f"{accepted(list(metric.dimensions))}"
                )

    def _shape(self, metric: Metric, group_by: Sequence[str], filters: Mapping[str, str]) -> Shape:
        self._check_dimensions(metric, [*group_by, *filters])
        labelled = frozenset(d.name for d in DIMENSIONS if d.labelled)
        return Shape(metric, split(metric, group_by, filters), labelled)

    def _groups(self) -> list[str]:
        return [group for group, metrics in GROUPS.items() if all(self._served(m.tier) for m in metrics)]

    def query(
        self,
        name: str,
        *,
        scope: str | None = None,
        start: date | None = None,
        end: date | None = None,
        period: date | None = None,
        group_by: Sequence[str] = (),
        filters: Mapping[str, str] | None = None,
    ) -> Answer:
        """The metric per scope and day (or 28-day period) of the range or period asked (the
        latest 28 days or period by default), split by `group_by`, filtered by `filters`
        (dimension -> id or label)."""
        metric = self.describe(name)
        filters = dict(filters or {})
        scope = scope or filters.pop("scope", None)
        shape = self._shape(metric, group_by, filters)
        with open_tiers(self.config, self._groups()) as conn, deadline(conn, self.config) as question:
            bounds = Bounds(*question.run("metrics/select_bounds.sql")[0])
            kind, scope_name = parse_scope(scope, [(s, n) for s, n in question.run("metrics/select_scopes.sql")])
            first, last = window(metric, bounds, start=start, end=end, period=period)
            where = {"scope": kind, "scope_name": scope_name, "first": first, "last": last}
            bound = {f"filter_{key}": value for key, value in filters.items()}
            question.run("metrics/select_metric.sql", identifiers=shape.identifiers(filters), **where, **bound)
            if metric.grain == "day":
                question.run("metrics/select_day_gaps.sql", identifiers=shape.identifiers({}), **where)
                rows = question.run("metrics/select_rows_with_gaps.sql", rows=self.config.row_limit + 1)
                days = (first, last)
            else:
                question.run("metrics/select_period_gaps.sql")
                rows = question.run("metrics/select_rows.sql", rows=self.config.row_limit + 1)
                days = question.run("metrics/select_period_range.sql")[0]
            gaps = tuple(day for (day,) in question.run("metrics/select_gaps.sql"))
            provisional = _provisional(question, kind, scope_name, days)
            hidden = self._suppressed(question, [*shape.columns[:-2]])
        return Answer(
            metric=metric,
            columns=shape.columns,
            rows=tuple(rows[: self.config.row_limit]),
            gaps=gaps,
            provisional=provisional,
            suppressed=hidden,
            freshness=self._freshness(metric, bounds),
            truncated=len(rows) > self.config.row_limit,
        )

    def compare(
        self,
        name: str,
        *,
        scope: str | None = None,
        first: date,
        second: date,
        group_by: Sequence[str] = (),
    ) -> Comparison:
        """The metric's two 28-day periods ending on `first` and `second`, per scope and group: the
        change of the second against the first, called by the page's rule over the daily values
        of the metric's `compared_by` (a period metric's own figures beside them)."""
        metric = self.describe(name)
        if metric.compared_by is None:
            comparable = [m.name for m in self.metrics() if m.compared_by]
            raise MetricsError(
                f"{name} has no daily counts the page's change rule can weigh: accepted: {accepted(comparable)}"
            )
        series = self.describe(metric.compared_by)
        self._check_dimensions(metric, group_by)
        keys = split(metric, [*group_by, *series.split_by], {})
        labelled = frozenset(d.name for d in DIMENSIONS if d.labelled)
        shape, series_shape = Shape(metric, keys, labelled), Shape(series, keys, labelled)
        periods = (period_of(first), period_of(second))
        with open_tiers(self.config, self._groups()) as conn, deadline(conn, self.config) as question:
            bounds = Bounds(*question.run("metrics/select_bounds.sql")[0])
            check_periods(metric, bounds, first, second)
            kind, scope_name = parse_scope(scope, [(s, n) for s, n in question.run("metrics/select_scopes.sql")])
            where = {"scope": kind, "scope_name": scope_name}
            values: dict[tuple[Any, ...], dict[date, Any]] = {}
            if metric.grain == "period":
                ends = {"first": min(first, second), "last": max(first, second)}
                question.run("metrics/select_metric.sql", identifiers=shape.identifiers({}), **where, **ends)
                for row in question.run("metrics/select_rows.sql", rows=None):
                    record = dict(zip(shape.columns, row, strict=True))
                    values.setdefault(group(record, keys), {})[record["period_end"]] = record[metric.name]
            span = {"first": min(periods)[0], "last": max(periods)[1]}
            question.run("metrics/select_metric.sql", identifiers=series_shape.identifiers({}), **where, **span)
            question.run("metrics/select_day_gaps.sql", identifiers=series_shape.identifiers({}), **where, **span)
            changes = question.run(
                "metrics/select_change.sql",
                identifiers=series_shape.change_identifiers(),
                first_start=periods[0][0],
                first_end=periods[0][1],
                second_start=periods[1][0],
                second_end=periods[1][1],
                rows=self.config.row_limit + 1,
            )
            in_periods = within(periods)
            gaps = tuple(day for (day,) in question.run("metrics/select_gaps.sql") if in_periods(day))
            provisional = tuple(
                day for day in _provisional(question, kind, scope_name, span.values()) if in_periods(day)
            )
            hidden = self._suppressed(question, [*series_shape.columns[:-2]], within=in_periods)
        columns, rows = comparison_rows(changes, shape, series, values, first, second)
        return Comparison(
            metric=metric,
            compared_by=series,
            first=periods[0],
            second=periods[1],
            columns=columns,
            rows=tuple(rows[: self.config.row_limit]),
            rule=_RULE,
            gaps=gaps,
            provisional=provisional,
            suppressed=hidden,
            freshness=self._freshness(metric, bounds),
            truncated=len(rows) > self.config.row_limit,
        )

    def _suppressed(
        self, question: Question, columns: list[str], within: Callable[[date], bool] | None = None
    ) -> Suppressed:
        found = question.run("metrics/select_suppressed.sql", rows=self.config.row_limit)
        groups = [dict(zip(columns, row[:-1], strict=True)) for row in found]
        if within is not None:
            groups = [g for g in groups if within(g["day"])]
            return Suppressed(count=len(groups), groups=tuple(groups))
        return Suppressed(count=found[0][-1] if found else 0, groups=tuple(groups))

    def _freshness(self, metric: Metric, bounds: Bounds) -> Freshness:
        published = published_at(tier_paths(self.config)[metric.tier])
        return Freshness(newest_day=bounds.newest, published_at=published, first_day=bounds.first)


def _per_user() -> str:
    return _PER_USER.format(variable=ENV_VARS["catalog_tier"], key=ENV_VARS["pseudonym_key"])


def _provisional(question: Question, scope: str | None, scope_name: str | None, days: Any) -> tuple[date, ...]:
    first, last = days
    if first is None:
        return ()
    rows = question.run("metrics/select_provisional.sql", scope=scope, scope_name=scope_name, first=first, last=last)
    return tuple(day for (day,) in rows)
