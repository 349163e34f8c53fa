"""The emulated service's vocabulary: its third-party agents and the apps behind them, the IDE's
features, languages, models, editors and versions, and the weighted draws over them (one byte
each) that the user profiles (emulator/population.py) and user-days (emulator/userday.py) use."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from emulator import telemetry

# (agent_id, name before the rename); ids are numeric strings as on the public service.
AGENTS: tuple[tuple[str, str], ...] = (
    ("2246796", "Claude (Anthropic)"),
    ("1850471", "Codex"),
    ("3022817", "Jules (Google)"),
    ("2718281", "Devin (Cognition)"),
    ("1447725", "Amp (Sourcegraph)"),
)
AGENT_NAMES = dict(AGENTS)
RENAMED_AGENT_ID = "1850471"
RENAMED_AGENT_OLD_NAME = "Codex"
RENAMED_AGENT_NEW_NAME = "Codex (OpenAI)"

# Internal apps as users start them: several map to one recognized agent (merged in the
# report), some to no recognized agent (dropped from the report).
AGENT_APPS: tuple[tuple[str, str | None], ...] = (
    ("claude-code-action", "2246796"),
    ("claude-for-web", "2246796"),
    ("codex-cloud", "1850471"),
    ("codex-review", "1850471"),
    ("jules-tasks", "3022817"),
    ("devin-app", "2718281"),
    ("amp-agent", "1447725"),
    ("homebrew-agent", None),
    ("acme-internal-bot", None),
)
UNRECOGNIZED_APPS = tuple(name for name, agent in AGENT_APPS if agent is None)

COMPLETION = "code_completion"
# feature -> (interactions, generations, acceptance rate, loc suggested to add and to delete
# per generation); the coefficients make a day's numbers look like a real developer's.
FEATURES: dict[str, tuple[float, float, float, float, float]] = {
    COMPLETION: (0.0, 6.0, 0.3, 1.8, 0.0),
    "chat_panel_ask_mode": (2.0, 1.0, 0.4, 8.0, 1.5),
    "chat_panel_edit_mode": (1.2, 1.5, 0.6, 10.0, 3.0),
    "chat_inline": (1.0, 1.0, 0.5, 5.0, 2.0),
    "chat_panel_custom_mode": (0.8, 0.6, 0.5, 6.0, 1.0),
    "chat_panel_unknown_mode": (0.3, 0.2, 0.5, 4.0, 1.0),
    "chat_panel_agent_mode": (1.5, 2.0, 0.7, 30.0, 8.0),
    "agent_edit": (0.0, 3.0, 0.8, 25.0, 10.0),
    telemetry.PLAN_FEATURE: (1.0, 0.5, 0.5, 6.0, 1.0),  # as custom mode before PLAN_MODE_FROM
    telemetry.OTHERS_FEATURE: (0.3, 0.6, 0.4, 4.0, 1.0),
    telemetry.UNKNOWN_FEATURE: (0.2, 0.4, 0.4, 4.0, 1.0),
}
CHAT_FEATURES = (
    "chat_panel_ask_mode",
    "chat_panel_edit_mode",
    "chat_inline",
    "chat_panel_custom_mode",
    "chat_panel_unknown_mode",
)
AGENT_MODE_FEATURES = ("chat_panel_agent_mode", "agent_edit")
LANGUAGES = (
    "python",
    "typescript",
    "javascript",
    "go",
    "java",
    "rust",
    "csharp",
    "ruby",
    "markdown",
    "yaml",
    "shell",
    "sql",
    "others",
)
COMPLETION_MODEL = "default"
CHAT_MODELS = ("gpt-4.1", "gpt-5", "gpt-5-mini", "claude-sonnet-4.5", "gemini-2.5-pro", "unknown")
AGENT_MODELS = ("claude-sonnet-4.5", "gpt-5", "gpt-5-codex", "unknown")
# ide -> (weight, ide versions, plugin name)
IDES: dict[str, tuple[int, tuple[str, ...], str]] = {
    "vscode": (60, ("1.103.2", "1.104.0", "1.104.3", "1.105.1"), "assistant-chat"),
    "intellij": (18, ("2025.2.1", "2025.2.3", "2025.3"), "assistant-intellij"),
    "visualstudio": (8, ("17.14.9", "17.14.13"), "assistant-vs"),
    "neovim": (5, ("0.11.3", "0.11.4"), "assistant.vim"),
    "xcode": (4, ("26.0", "26.0.1"), "assistant-xcode"),
    "eclipse": (3, ("4.36",), "assistant-eclipse"),
    "unknown": (2, ("unknown",), "unknown"),
}
IDE_NAMES = tuple(IDES)
PLUGIN_VERSIONS = ("0.30.3", "0.31.0", "0.31.2", "0.32.1", "1.372.0", "1.388.0")
CLI_VERSIONS = ("0.0.330", "0.0.342", "1.0.2", "1.0.8")
# AI credits per chat interaction by model (0: included in the plan).
CREDITS = {
    "gpt-4.1": 0.0,
    "gpt-5-mini": 0.33,
    "gpt-5": 1.0,
    "gpt-5-codex": 1.0,
    "claude-sonnet-4.5": 1.0,
    "gemini-2.5-pro": 1.0,
    "unknown": 1.0,
}
# The adoption phases' labels by phase_number, as the service's docs give them.
PHASE_LABELS = ("No Cohort", "Phase 1", "Phase 2", "Phase 3")


def _byte_table(choices: Sequence[Any], weights: Sequence[int]) -> tuple[Any, ...]:
    """byte value -> choice, in proportion to the weights (a weighted draw from one byte)."""
    pool = [c for c, w in zip(choices, weights, strict=True) for _ in range(w)]
    return tuple(pool[i * len(pool) // 256] for i in range(256))


IDE_TABLE = _byte_table(IDE_NAMES, [w for w, _, _ in IDES.values()])
# Apps of the renamed agent are favoured so the rename shows in small worlds too.
APP_TABLE = _byte_table(range(len(AGENT_APPS)), (3, 2, 4, 2, 2, 2, 2, 2, 1))
# byte value -> volume multiplier, skewed like real usage (most days light, some heavy)
MULT = tuple(0.35 + 2.4 * (i / 255) ** 2 for i in range(256))

# The words teams, repositories and issues are named from (one list: both worlds name alike).
NAME_WORDS = (
    "atlas",
    "beacon",
    "cobalt",
    "delta",
    "ember",
    "fjord",
    "garnet",
    "harbor",
    "iris",
    "juniper",
    "kepler",
    "lumen",
    "meridian",
    "nimbus",
    "orbit",
    "prism",
    "quartz",
    "raven",
    "sierra",
    "tundra",
    "umber",
    "vertex",
    "willow",
    "xenon",
    "yarrow",
    "zephyr",
)
