"""The tools an assistant may call: each one's arguments (a model: the JSON schema the client is
shown, and what a call is checked against), the reader's call that answers it, and the short text
beside the answer's structured content. No tool takes SQL: a question is a metric of the catalog,
a scope, days and groups, and the reader writes the query.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import date
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from pydantic.config import JsonDict

from pipelines.metrics import MetricsReader, parse_day

# Rows the text beside an answer lists; all of them are in its structured content.
TEXT_ROWS = 20
# Days the text names one by one; more are said as how many, from when to when.
TEXT_DAYS = 7


# A day is text the reader parses, so a malformed one is its one line naming what is accepted.
_DAY: JsonDict = {"format": "date"}
_METRIC = Field(description="A metric's name, as list_metrics gives it.", min_length=1, max_length=200)
_SCOPE = Field(
    None,
    description="The scope the figures are of: organization:<slug> or enterprise:<slug> (a bare slug "
    "matches either); none: every scope, each its own rows, which never add up.",
    max_length=200,
)
_GROUP_BY = Field(
    default=(),
    description="Dimensions to split the rows by (list_dimensions; a metric accepts those describe_metric names).",
    max_length=10,
)


class _Args(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class NoArgs(_Args):
    pass


class DescribeArgs(_Args):
    metric: str = _METRIC


class QueryArgs(_Args):
    metric: str = _METRIC
    scope: str | None = _SCOPE
    start: str | None = Field(
        None, description="The first day, YYYY-MM-DD (UTC), of a day range.", json_schema_extra=_DAY
    )
    end: str | None = Field(None, description="The last day, YYYY-MM-DD (UTC), of a day range.", json_schema_extra=_DAY)
    period: str | None = Field(
        None,
        description="A 28-day period given by its newest day, YYYY-MM-DD. Without start, end or "
        "period: the latest 28 days, or the latest period.",
        json_schema_extra=_DAY,
    )
    group_by: tuple[str, ...] = _GROUP_BY
    filters: dict[str, str] = Field(
        default_factory=dict,
        description='Dimension → value the rows must have, e.g. {"agent": "<id>"}.',
        max_length=10,
    )


class CompareArgs(_Args):
    metric: str = _METRIC
    scope: str | None = _SCOPE
    first: str = Field(description="The earlier 28-day period, by its newest day, YYYY-MM-DD.", json_schema_extra=_DAY)
    second: str = Field(description="The later 28-day period, by its newest day, YYYY-MM-DD.", json_schema_extra=_DAY)
    group_by: tuple[str, ...] = _GROUP_BY


@dataclass(frozen=True)
class ToolSpec:
    name: str
    description: str
    args: type[_Args]
    answer: Callable[[MetricsReader, Any], dict[str, Any]]  # the reader's answer, JSON-able
    text: Callable[[Mapping[str, Any]], str]


def argument_error(spec: ToolSpec, exc: ValidationError) -> str:
    """The first thing wrong with a call's arguments, in one line, with what the tool accepts."""
    error = exc.errors()[0]
    where = ".".join(str(part) for part in error["loc"]) or "arguments"
    accepted = ", ".join(spec.args.model_fields) or "none"
    if error["type"] == "extra_forbidden":
        return f"{spec.name} takes no argument {where!r}: it takes {accepted}"
    if error["type"] == "missing":
        return f"{spec.name} needs {where}: it takes {accepted}"
    return " ".join(f"{spec.name}: {where}: {error['msg']}: it takes {accepted}".split())


def _metrics_text(answer: Mapping[str, Any]) -> str:
    lines = [f"{len(answer['metrics'])} metrics:"]
    lines += [f"- {m['name']} ({m['unit']}, per {m['grain']}): {m['definition']}" for m in answer["metrics"]]
    return "\n".join(lines)


def _dimensions_text(answer: Mapping[str, Any]) -> str:
    return "\n".join(f"- {d['name']}: {d['definition']}" for d in answer["dimensions"])


def _metric_text(metric: Mapping[str, Any]) -> str:
    return (
        f"{metric['name']} ({metric['unit']}, per {metric['grain']}, tier {metric['tier']}): {metric['definition']} "
        f"Dimensions: {', '.join(metric['dimensions'])}. Gaps: {metric['gap_rule']} Finality: {metric['finality_rule']}"
    )


def _days(days: list[str]) -> str:
    if len(days) > TEXT_DAYS:
        return f"{len(days)} days from {days[0]} to {days[-1]}"
    return ", ".join(days) or "none"


def _answer_text(answer: Mapping[str, Any]) -> str:
    """What an answer says besides its rows, then its first rows: enough for a client that shows
    only text; the structured content holds everything."""
    rows, metric, suppressed = answer["rows"], answer["metric"], answer["suppressed"]
    head = f"{metric['name']}: {metric['definition']}"
    if "first" in answer:  # a comparison: the periods it weighs, and the rule that calls a change
        first, second = answer["first"], answer["second"]
        head += f" {second['start']}..{second['end']} against {first['start']}..{first['end']}: {answer['rule']}"
    lines = [
        " ".join(head.split()),
        f"{len(rows)} rows{' (cut at the row limit)' if answer['truncated'] else ''}; "
        f"suppressed under k: {suppressed['count']}; gap days (no figure, not zero): {_days(answer['gaps'])}; "
        f"provisional days (still filling in): {_days(answer['provisional'])}; "
        f"newest day {answer['freshness']['newest_day']}, published {answer['freshness']['published_at']}",
    ]
    lines += ["; ".join(f"{k}={json.dumps(v)}" for k, v in row.items()) for row in rows[:TEXT_ROWS]]
    if len(rows) > TEXT_ROWS:
        lines.append(f"… {len(rows) - TEXT_ROWS} more rows in the structured content")
    return "\n".join(lines)


def _list_metrics(reader: MetricsReader, args: NoArgs) -> dict[str, Any]:
    return {"metrics": [m.to_dict() for m in reader.metrics()]}


def _list_dimensions(reader: MetricsReader, args: NoArgs) -> dict[str, Any]:
    return {"dimensions": [d.to_dict() for d in reader.dimensions()]}


def _describe(reader: MetricsReader, args: DescribeArgs) -> dict[str, Any]:
    return reader.describe(args.metric).to_dict()


def _query(reader: MetricsReader, args: QueryArgs) -> dict[str, Any]:
    return reader.query(
        args.metric,
        scope=args.scope,
        start=_parsed(args.start, "start"),
        end=_parsed(args.end, "end"),
        period=_parsed(args.period, "period"),
        group_by=args.group_by,
        filters=args.filters,
    ).to_dict()


def _compare(reader: MetricsReader, args: CompareArgs) -> dict[str, Any]:
    first, second = parse_day(args.first, what="first"), parse_day(args.second, what="second")
    return reader.compare(args.metric, scope=args.scope, first=first, second=second, group_by=args.group_by).to_dict()


def _parsed(text: str | None, what: str) -> date | None:
    return None if text is None else parse_day(text, what=what)


_ANSWERS_CARRY = (
    " Every answer carries the metric's definition, the gap days (no figure: never read one as zero), "
    "the provisional days (still filling in), how many rows were suppressed under k and in which groups, "
    "and the data's freshness."
)

TOOLS: dict[str, ToolSpec] = {
    spec.name: spec
    for spec in (
        ToolSpec(
            "list_metrics",
            "The catalog's metrics this server answers: name, definition, unit, grain (day or 28-day "
            "period), dimensions, gap and finality rules. Start here.",
            NoArgs,
            _list_metrics,
            _metrics_text,
        ),
        ToolSpec(
            "list_dimensions",
            "What rows may be grouped and filtered by (scope, team, agent app, …), each with its definition.",
            NoArgs,
            _list_dimensions,
            _dimensions_text,
        ),
        ToolSpec(
            "describe_metric",
            "One metric whole: its definition, unit, grain, dimensions, gap and finality rules, what computes it.",
            DescribeArgs,
            _describe,
            _metric_text,
        ),
        ToolSpec(
            "query_metric",
            "A metric's figures for a scope, over a day range (start, end) or a 28-day period (by its "
            "newest day; none: the latest), split by group_by and narrowed by filters." + _ANSWERS_CARRY,
            QueryArgs,
            _query,
            _answer_text,
        ),
        ToolSpec(
            "compare_periods",
            "A metric in two 28-day periods (each by its newest day), per group: both values, the change, "
            "and the call the report page makes of it (grown, shrunk, steady within the day-to-day noise, "
            "new, gone; none on too few final days)." + _ANSWERS_CARRY,
            CompareArgs,
            _compare,
            _answer_text,
        ),
    )
}
