"""docs/metrics.md, written from the declarations alone (the catalog cannot drift from its page):
`python -m pipelines.metrics.docs > docs/metrics.md`, and tests/unit/metrics/test_docs.py holds
the file equal to it."""

from __future__ import annotations

import sys

from pipelines.metrics._model import GRAINS, Metric
from pipelines.metrics.catalog import DIMENSIONS, GROUPS

_INTRO = """\
# The metric catalog

<!-- Written by `python -m pipelines.metrics.docs > docs/metrics.md` from the declarations in
pipelines/metrics/: edit those, then write this page again (tests/unit/metrics/test_docs.py). -->

Governed metrics, for people and for AI assistants: each is declared once, with its definition in
the service's terms, its unit, its grain (a day, or a 28-day period given by its newest day), the
dimensions it may be grouped and filtered by, its gap and finality rules, its privacy tier and the
SQL that computes it over the tier's views. `metrics-etl metrics query` answers them on the command line
(as a table, CSV or JSON), and the MCP server answers the same catalog to an AI assistant; neither
takes SQL. To ask these from an AI assistant, see [assistants.md](assistants.md) (a client
configuration that starts `metrics-etl mcp`, its tools and what it refuses).

```sh
metrics-etl metrics list
metrics-etl metrics describe agent_adoption
metrics-etl metrics query agent_adoption --format json
metrics-etl metrics query agent_job_starts --from 2026-03-01 --to 2026-03-28 --where agent=a-1
metrics-etl metrics compare agent_adoption --first 2026-03-03 --second 2026-03-31
```

**What every answer carries.** Beside its rows: the metric's declaration; `gaps`, the days no
figure exists for (no report, or a report without these figures: a row with NULL, never a zero);
`provisional`, the days fetched before they were final (still filling in); `suppressed`, how many
rows the aggregate tier hid as they could tell of fewer than k people, and which groups (a scope,
a day or period, an app, a team: never a person); `freshness`, the first and newest day of the
tier's history (days before its first are outside it, no gaps) and when the tier was published;
and `truncated`, whether the row limit (`METRICS_CATALOG_ROW_LIMIT`, 1000) cut it. A question runs
at most `METRICS_CATALOG_TIMEOUT` seconds (10). A metric, dimension, scope or range
the catalog does not know is one line naming what it accepts (exit 2 on the command line).

**Privacy.** By default the catalog reads the aggregate tier's serving database and nothing else
(`aggregate/serving-aggregate.duckdb`, [privacy.md](privacy.md)): no login, no id, no group under
k. The per-person metrics below exist only in the pseudonymous tier: they answer, by pseudonym,
only when `METRICS_CATALOG_TIER=pseudonymous` (or `--tier pseudonymous`) and the tier exists (a
publish writes it when `METRICS_PSEUDONYM_KEY` is set). The reader opens the tiers' databases
read-only for each question, and DuckDB may then open no file but their own lakes: `forget` and
retention, which publish the tiers again, reach its next answer as any reader's.

**Comparisons** weigh two 28-day periods by the page's one change rule
(`sql/views/_change_rule.sql`, loaded as it is): the rate a day over each period's compared days
(final days with data), grown or shrunk only beyond the day-to-day noise, new, gone or steady
otherwise, none on fewer than 14 compared days. A period metric is compared on the daily values
of the metric it names (`compared by`): agent adoption as the page calls an app, on its job starts.
Each answer is split by scope: an organization's figures are a part of its enterprise's.
"""

_HOW_TO_ADD = """\
## How to add a metric: one declaration

A metric whose figures its group's view already has is one declaration in its group's module
(`pipelines/metrics/<group>.py`), nothing else: its name, definition, unit, `measure` (the SQL
aggregate over the view's rows, e.g. `sum(agent_sessions)`), its dimensions (and `split_by` for a
figure that does not add up across them, as distinct users), and `compared_by` when the page's
change rule can weigh its daily counts; the group's helper gives its grain, source, gap and
finality rules. Then write this page again: `python -m pipelines.metrics.docs > docs/metrics.md`,
and give its figure from the full tier's views (one line of `FULL` in
`tests/integration/metrics/_both_ways.py`), so the proof that the catalog and the page agree
covers it. (`code_generations_28d` and `code_acceptances_28d` were added so: one production file.)
A figure of the tier the view does not carry yet is one more column in its group's SQL
(`sql/metrics/<group>.sql`); a new group is its module, its SQL file and its line in
`pipelines/metrics/catalog.py`. `tests/unit/metrics/test_catalog.py` checks every declaration
against the views it reads.
"""


def render() -> str:
    parts = [_INTRO, "\n## Dimensions\n\n| dimension | what it is | tier |\n|---|---|---|\n"]
    parts += [f"| `{d.name}` | {d.definition} | {d.tier} |\n" for d in DIMENSIONS]
    for group, metrics in GROUPS.items():
        parts.append(f"\n## {group.capitalize()} (`pipelines/metrics/{group}.py`, `sql/metrics/{group}.sql`)\n")
        parts += [_metric(m) for m in metrics]
    parts.append("\n" + _HOW_TO_ADD)
    return "".join(parts)


def _metric(metric: Metric) -> str:
    split = ", ".join(f"`{d}`" for d in ("scope", *metric.split_by))
    compared = f"`{metric.compared_by}` a day" if metric.compared_by else "not compared (no daily counts)"
    return (
        f"\n### `{metric.name}`\n\n{metric.definition}\n\n"
        f"- unit: {metric.unit}; grain: {GRAINS[metric.grain]}; tier: {metric.tier}\n"
        f"- dimensions: {', '.join(f'`{d}`' for d in metric.dimensions)} (always split by {split})\n"
        f"- gaps: {metric.gap_rule}\n"
        f"- finality: {metric.finality_rule}\n"
        f"- compared by: {compared}\n"
        f"- SQL: `{metric.measure}` over `{metric.source}`\n"
    )


if __name__ == "__main__":
    sys.stdout.write(render())
