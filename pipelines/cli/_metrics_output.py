"""How `metrics-etl metrics` prints: a table for a person, CSV rows for a script (what the rows
cannot say, on stderr), or the whole answer as JSON. Every form says the gaps (never zero), the
provisional days and the rows hidden under k, so none can be read without them."""

from __future__ import annotations

import csv
import json
import sys
from collections.abc import Sequence
from datetime import date
from decimal import Decimal
from typing import TYPE_CHECKING, Any

import click

if TYPE_CHECKING:
    from pipelines.metrics import Answer, Comparison, Dimension, Metric

FORMATS = ("table", "csv", "json")
_LISTED = 8  # days or groups a note names before "and N more"


def print_catalog(metrics: Sequence[Metric], dimensions: Sequence[Dimension], *, fmt: str) -> None:
    if fmt == "json":
        _json({"metrics": [m.to_dict() for m in metrics], "dimensions": [d.to_dict() for d in dimensions]})
        return
    columns = ("metric", "grain", "unit", "dimensions", "tier", "definition")
    rows = [(m.name, m.to_dict()["grain"], m.unit, " ".join(m.dimensions), m.tier, m.definition) for m in metrics]
    if fmt == "csv":
        _csv(columns, rows)
        return
    _table(columns, rows)
    click.echo("\ndimensions:")
    for d in dimensions:
        click.echo(f"  {d.name:12} {d.definition}")


def print_metric(metric: Metric, *, fmt: str) -> None:
    described = metric.to_dict()
    if fmt == "json":
        _json(described)
    elif fmt == "csv":
        _csv(("field", "value"), [(k, _text(v)) for k, v in described.items()])
    else:
        width = max(len(k) for k in described)
        for key, value in described.items():
            click.echo(f"{key:{width}}  {_text(value)}")


def print_answer(answer: Answer | Comparison, *, fmt: str) -> None:
    if fmt == "json":
        _json(answer.to_dict())
        return
    notes = _notes(answer)
    if fmt == "csv":
        _csv(answer.columns, answer.rows)
        for note in notes:
            click.echo(note, err=True)
        return
    metric = answer.metric
    click.echo(f"{metric.name}: {metric.definition} ({metric.unit}, per {metric.to_dict()['grain']})")
    _table(answer.columns, answer.rows)
    for note in notes:
        click.echo(note)


def _notes(answer: Answer | Comparison) -> list[str]:
    """What a reader of the rows must know: gaps, provisional days, hidden rows, freshness, the cut."""
    out = []
    if getattr(answer, "rule", None):
        out.append(f"compared by {answer.to_dict()['compared_by']}, with {answer.to_dict()['rule']}")
    if answer.gaps:
        out.append(f"gaps (no figure: NULL, never zero): {_days(answer.gaps)}")
    if answer.provisional:
        out.append(f"provisional (fetched before final, still filling in): {_days(answer.provisional)}")
    if answer.suppressed.count:
        groups = answer.suppressed.to_dict()["groups"]
        named = "; ".join(" ".join(str(v) for v in g.values() if v is not None) for g in groups[:_LISTED])
        more = f"; and {len(groups) - _LISTED} more" if len(groups) > _LISTED else ""
        out.append(f"hidden under k (could tell of fewer than k people): {answer.suppressed.count} ({named}{more})")
    fresh = answer.freshness
    out.append(f"data up to {fresh.newest_day or 'no day yet'}; published {fresh.published_at or 'never'}")
    if answer.truncated:
        out.append(f"truncated: the first {len(answer.rows)} rows (METRICS_CATALOG_ROW_LIMIT); ask for fewer")
    return out


def _days(days: Sequence[date]) -> str:
    shown = ", ".join(d.isoformat() for d in days[:_LISTED])
    return shown + (f" and {len(days) - _LISTED} more" if len(days) > _LISTED else "")


def _text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return " ".join(str(v) for v in value)
    if isinstance(value, float):
        return f"{value:.6g}"
    if isinstance(value, (date, Decimal)):
        return str(value)
    return str(value)


def _json(value: Any) -> None:
    click.echo(json.dumps(value, indent=1, ensure_ascii=False))


def _csv(columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> None:
    writer = csv.writer(sys.stdout, lineterminator="\n")
    writer.writerow(columns)
    writer.writerows([_text(v) for v in row] for row in rows)


def _table(columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> None:
    """Aligned columns, numbers to the right; no figure is `—` (a gap or a hidden row: never 0)."""
    cells = [[("—" if v is None else _text(v)) for v in row] for row in rows]
    numeric = [
        all(isinstance(row[i], (int, float, Decimal)) or row[i] is None for row in rows) for i in range(len(columns))
    ]
    widths = [max([len(c), *(len(row[i]) for row in cells)]) for i, c in enumerate(columns)]

    def line(values: Sequence[str]) -> str:
        return "  ".join(
            v.rjust(w) if num else v.ljust(w) for v, w, num in zip(values, widths, numeric, strict=True)
        ).rstrip()

    click.echo(line(columns))
    for row in cells:
        click.echo(line(row))
    if not rows:
        click.echo("(no rows)")
