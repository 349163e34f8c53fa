"""What the emulated Anthropic Admin API's Claude Code analytics hold: one record per user and
day (docs/vendors.md, "What each vendor sends"), from (seed, person, day), scaled by the lag
(emulator/vendor_people.py `share`), and a CI pipeline's API key on some days.

A user-day's final figures: 1 to 9 sessions; 20 to 180 lines added a session, 15% to 60% of
that removed; commits up to the sessions, pull requests up to half the commits; each edit tool's
proposals with 3% to 20% rejected; tokens per model (the person's main model every day, Claude
Haiku 4.5 on some days besides), and the estimated cost in cents at the models' list prices.
A partial day's counts are the final ones times the share, rounded down (at least one session),
so a figure never shrinks as the clock moves.
"""

from __future__ import annotations

import math
import random
from datetime import date
from typing import Any

from emulator.population import key
from emulator.vendor_people import VendorPeople, share

# Model -> dollars per million tokens: input, output, cache read, cache creation (5 minutes).
PRICES: dict[str, tuple[float, float, float, float]] = {
    "claude-sonnet-4-5-20250929": (3.0, 15.0, 0.30, 3.75),
    "claude-opus-4-1-20250805": (15.0, 75.0, 1.50, 18.75),
    "claude-haiku-4-5-20251001": (1.0, 5.0, 0.10, 1.25),
}
_MAIN_MODELS = ("claude-sonnet-4-5-20250929",) * 3 + ("claude-opus-4-1-20250805",)
_HAIKU = "claude-haiku-4-5-20251001"
TERMINALS = ("vscode", "iTerm.app", "tmux", "Apple_Terminal", "ghostty", "WezTerm", "cursor", "pycharm")
TOOLS = ("edit_tool", "multi_edit_tool", "write_tool", "notebook_edit_tool")
API_KEY_NAME = "ci-review-pipeline"  # an API key a CI job runs Claude Code with (an api_actor)


def cost_cents(model: str, tokens: dict[str, int]) -> int:
    """The estimated cost in cents (USD minor units) of a model's tokens, rounded half up."""
    p_in, p_out, p_read, p_write = PRICES[model]
    dollars = (
        tokens["input"] * p_in
        + tokens["output"] * p_out
        + tokens["cache_read"] * p_read
        + tokens["cache_creation"] * p_write
    ) / 1_000_000
    return math.floor(dollars * 100 + 0.5)


class ClaudeCodeData:
    """The records of the organization's Claude Code analytics, day by day."""

    def __init__(self, people: VendorPeople) -> None:
        self.people = people
        self.organization_id = _uuid(people.seed)

    def records(self, day: date, *, today: date) -> list[dict[str, Any]]:
        """The day's records as answered on `today`: users by email, then the API key's."""
        part = share(day, today)
        if part == 0:
            return []
        people = self.people
        out = [
            self._record(day, part, person.index, {"type": "user_actor", "email_address": person.email})
            for person in people.roster("claude")
            if people.active("claude", person.index, day)
        ]
        if day >= people.first_day and key("claude-api-actor", people.seed, day.toordinal()) % 3 == 0:
            out.append(self._record(day, part, -1_000_000, {"type": "api_actor", "api_key_name": API_KEY_NAME}))
        return out

    def _record(self, day: date, part: float, index: int, actor: dict[str, str]) -> dict[str, Any]:
        people = self.people
        rng = random.Random(key("claude-day", people.seed, index, day.toordinal()))
        sessions = rng.randint(1, 9)
        added = sessions * rng.randint(20, 180)
        removed = int(added * rng.uniform(0.15, 0.6))
        commits = rng.randint(0, sessions)
        pulls = rng.randint(0, commits // 2)
        tools = {}
        for n, tool in enumerate(TOOLS):
            proposals = 0 if n == 3 and index % 5 else sessions * rng.randint((6, 2, 1, 1)[n], (14, 5, 4, 3)[n])
            rejected = int(proposals * rng.uniform(0.03, 0.2))
            tools[tool] = {"accepted": _part(proposals - rejected, part), "rejected": _part(rejected, part)}
        models = [people.pick("claude", index, _MAIN_MODELS)]
        if rng.random() < 0.4:
            models.append(_HAIKU)
        breakdown = []
        for model in models:
            scale = 1.0 if model == models[0] else 0.3
            base = int(sessions * rng.randint(20_000, 90_000) * scale)
            final = {
                "input": base,
                "output": int(base * rng.uniform(0.08, 0.25)),
                "cache_read": int(base * rng.uniform(1.5, 6.0)),
                "cache_creation": int(base * rng.uniform(0.1, 0.4)),
            }
            tokens = {name: _part(value, part) for name, value in final.items()}
            breakdown.append(
                {
                    "model": model,
                    "tokens": tokens,
                    "estimated_cost": {"currency": "USD", "amount": cost_cents(model, tokens)},
                }
            )
        customer = (
            {"customer_type": "api"}
            if actor["type"] == "api_actor"
            else {"customer_type": "subscription", "subscription_type": "enterprise"}
        )
        return {
            "date": f"{day.isoformat()}T00:00:00Z",
            "actor": actor,
            "organization_id": self.organization_id,
            **customer,
            "terminal_type": "github-actions" if "api_key_name" in actor else people.pick("claude", index, TERMINALS),
            "core_metrics": {
                "num_sessions": max(1, _part(sessions, part)),
                "lines_of_code": {"added": _part(added, part), "removed": _part(removed, part)},
                "commits_by_claude_code": _part(commits, part),
                "pull_requests_by_claude_code": _part(pulls, part),
            },
            "tool_actions": tools,
            "model_breakdown": breakdown,
        }


def _part(value: int, part: float) -> int:
    return value if part >= 1 else int(value * part)


def _uuid(seed: int) -> str:
    h = f"{key('anthropic-org', seed):016x}{key('anthropic-org-2', seed):016x}"
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:32]}"
