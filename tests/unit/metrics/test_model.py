"""What an answer carries is JSON as it is: dates as ISO days, money as numbers, and every part the
interface names (metric, columns, rows, gaps, provisional, suppressed, freshness, truncated)."""

from __future__ import annotations

import json
from datetime import date
from decimal import Decimal

from pipelines.metrics import Answer, Freshness, MetricsError, Suppressed
from pipelines.metrics.catalog import METRICS


def test_an_answer_is_json_with_every_part_named() -> None:
    answer = Answer(
        metric=METRICS["cost_center_cost_28d"],
        columns=(
            "scope",
            "scope_name",
            "period_start",
            "period_end",
            "cost_center",
            "cost_center_name",
            "cost_center_cost_28d",
            "suppressed",
        ),
        rows=(
            (
                "enterprise",
                "acme-corp",
                date(2026, 3, 4),
                date(2026, 3, 31),
                "cc-1",
                "Platform",
                Decimal("12.50"),
                False,
            ),
        ),
        gaps=(date(2026, 3, 7),),
        provisional=(date(2026, 3, 31),),
        suppressed=Suppressed(1, ({"scope": "enterprise", "period_end": date(2026, 3, 31), "cost_center": "cc-2"},)),
        freshness=Freshness(date(2026, 3, 31), "2026-04-01T06:00:00+00:00"),
    )
    said = json.loads(json.dumps(answer.to_dict()))
    assert set(said) == {"metric", "columns", "rows", "gaps", "provisional", "suppressed", "freshness", "truncated"}
    assert said["rows"][0]["cost_center_cost_28d"] == 12.5 and said["rows"][0]["period_end"] == "2026-03-31"
    assert said["gaps"] == ["2026-03-07"] and said["provisional"] == ["2026-03-31"]
    assert said["suppressed"] == {
        "count": 1,
        "groups": [{"scope": "enterprise", "period_end": "2026-03-31", "cost_center": "cc-2"}],
    }
    assert set(said["metric"]) >= {
        "name",
        "definition",
        "unit",
        "grain",
        "dimensions",
        "gap_rule",
        "finality_rule",
        "tier",
    }


def test_an_error_is_one_line_whatever_it_was_given() -> None:
    assert str(MetricsError("unknown metric 'x':\n  accepted: a,\n b")) == "unknown metric 'x': accepted: a, b"
