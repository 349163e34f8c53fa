"""Synthetic report records shaped like the public service's (docs/ingest.md, "Record fields under each
dialect")."""

from __future__ import annotations

import json
import random
from datetime import date, timedelta
from pathlib import Path

from pipelines.transform.schema import ACTIVITY_COUNTS, BREAKDOWN_ARRAYS

_VALUES = {
    "ide": ("vscode", "jetbrains", "visualstudio", "neovim"),
    "feature": ("code_completion", "chat_panel_agent_mode", "chat_inline", "unknown"),
    "language": ("python", "typescript", "go", "unknown"),
    "model": ("gpt-4.1", "claude-sonnet-4", "unknown"),
}
AGENTS = (("2246796", "Claude (Anthropic)"), ("1143301", "Codex"), ("990017", "Jules"))


def _counts(rng: random.Random) -> dict[str, int]:
    return {name: rng.randint(0, 40) for name in ACTIVITY_COUNTS}


def daily_record(rng: random.Random, *, day: date, user: int | None, agents: bool = True, cli: bool = True) -> dict:
    """One daily record; `user=None` gives an aggregate record (with session counts)."""
    record: dict = {"day": day.isoformat(), "organization_id": "4711", **_counts(rng)}
    if user is None:
        record |= {
            "daily_active_users": rng.randint(1, 50),
            "monthly_active_users": 60,
            "pull_requests": {"total_created": 3, "total_merged": 2, "median_minutes_to_merge": 41.5},
        }
    else:
        record |= {"user_id": user, "user_login": f"user{user}", "used_agent": agents, "used_chat": True}
    for _kind, (field, keys) in BREAKDOWN_ARRAYS.items():
        record[field] = [
            {**{k: rng.choice(_VALUES[k]) for k in keys}, **_counts(rng)} for _ in range(rng.randint(1, 3))
        ]
    if cli:
        record["totals_by_cli"] = {
            "session_count": 2,
            "request_count": 9,
            "prompt_count": 4,
            "token_usage": {"output_tokens_sum": 900, "prompt_tokens_sum": 300, "avg_tokens_per_request": 133.3},
        }
    if agents:
        entries = []
        for agent_id, name in rng.sample(AGENTS, rng.randint(1, len(AGENTS))):
            entry = {"agent_id": agent_id, "agent_name": name, "user_initiated_interaction_count": rng.randint(0, 30)}
            if user is None:
                entry["session_count"] = rng.randint(0, 10)
            entries.append(entry)
        record["totals_by_3rd_party_agent"] = entries
    return record


def write_user_file(path: Path, *, users: int, days: int, start: date, seed: int = 1) -> int:
    """Write a user-level NDJSON file of users x days records; returns the byte count."""
    rng = random.Random(seed)
    with path.open("w") as out:
        for d in range(days):
            for u in range(1, users + 1):
                rec = daily_record(
                    rng, day=start + timedelta(days=d), user=u, agents=rng.random() < 0.6, cli=rng.random() < 0.5
                )
                out.write(json.dumps(rec, separators=(",", ":")) + "\n")
    return path.stat().st_size
