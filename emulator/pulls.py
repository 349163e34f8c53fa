"""The pull requests of a scope's day in its aggregate record: drawn from the day's active IDE
users, scaled by completeness, the assistant's suggestions shared out by comment type
(emulator/repos.py splits them among the day's repositories)."""

from __future__ import annotations

import random
from collections.abc import Callable
from datetime import date
from typing import Any

from emulator.population import key
from emulator.repos import COMMENT_TYPES, split


def pull_requests(
    scope: str, day: date, c: float, active: int, *, seed: int, name: Callable[[str], str]
) -> dict[str, Any]:
    """A scope's pull requests of a day drawn for its `active` IDE users, scaled by completeness."""
    rng = random.Random(key("pulls", seed, scope, day.toordinal()))
    created = int(active * rng.uniform(0.3, 0.8))
    merged = int(created * rng.uniform(0.5, 0.9))
    reviewed = int(created * rng.uniform(0.6, 1.0))
    suggestions = int(reviewed * rng.uniform(1.0, 4.0))
    applied = int(suggestions * rng.uniform(0.2, 0.6))
    by_assistant = int(created * rng.uniform(0.05, 0.3))
    reviewed_by_assistant = int(reviewed * rng.uniform(0.1, 0.5))
    median = round(rng.uniform(25.0, 900.0), 1)
    merged_by_assistant = min(merged, int(by_assistant * rng.uniform(0.4, 0.9)))
    merged_reviewed = min(merged, int(reviewed_by_assistant * rng.uniform(0.4, 0.9)))
    assistant_suggestions = int(suggestions * rng.uniform(0.3, 0.7))
    assistant_applied = min(applied, int(assistant_suggestions * rng.uniform(0.2, 0.6)))
    scaled = [
        int(n * c)
        for n in (
            created,
            reviewed,
            merged,
            suggestions,
            applied,
            by_assistant,
            reviewed_by_assistant,
            merged_by_assistant,
            merged_reviewed,
            assistant_suggestions,
            assistant_applied,
        )
    ]
    pulls = {
        "total_created": scaled[0],
        "total_reviewed": scaled[1],
        "total_merged": scaled[2],
        "median_minutes_to_merge": median if scaled[2] else None,
        "total_suggestions": scaled[3],
        "total_applied_suggestions": scaled[4],
        "total_created_by_assistant": scaled[5],
        "total_reviewed_by_assistant": scaled[6],
        "total_merged_created_by_assistant": scaled[7],
        "total_merged_reviewed_by_assistant": scaled[8],
        "median_minutes_to_merge_assistant_authored": round(median * rng.uniform(0.5, 1.2), 1) if scaled[7] else None,
        "median_minutes_to_merge_assistant_reviewed": round(median * rng.uniform(0.6, 1.1), 1) if scaled[8] else None,
        "total_assistant_suggestions": scaled[9],
        "total_assistant_applied_suggestions": scaled[10],
    }
    named: dict[str, Any] = {name(k): v for k, v in pulls.items()}
    # The assistant's suggestions per comment type: the day's totals shared out by type.
    weights = [1 + rng.randrange(5) for _ in COMMENT_TYPES]
    named[name("assistant_suggestions_by_comment_type")] = [
        {
            "comment_type": kind,
            name("total_assistant_suggestions"): suggested,
            name("total_assistant_applied_suggestions"): applied,
        }
        for kind, suggested, applied in zip(
            COMMENT_TYPES, split(scaled[9], weights), split(scaled[10], weights), strict=True
        )
        if suggested
    ]
    return named
