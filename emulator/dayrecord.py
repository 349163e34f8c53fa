"""What one user's day holds: the scaled numbers its user-level line (emulator/userlines.py) and
the aggregates are written from; emulator/userday.py makes them."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from emulator.recordjson import ZEROS


@dataclass(slots=True)
class UserDay:
    """One user's (scaled) numbers for one day."""

    active: bool
    used_chat: bool
    used_agent: bool
    used_cli: bool
    ide: str
    totals: Sequence[int]
    languages: tuple[str, ...]
    features: list[tuple[str, str, list[list[int]]]]  # (feature, model, counts per language)
    cli: tuple[int, int, int, int, int] | None  # sessions, requests, prompts, out, prompt tokens
    agents: list[tuple[str, int, int]]  # (agent_id, job starts, sessions), merged apps
    review_active: bool
    review_passive: bool
    cloud_agent: bool = False  # the service's own cloud agent (formerly "coding agent")
    app: bool = False  # the assistant's desktop app
    vscode_agent: bool = False  # agent sessions in VS Code
    app_counts: tuple[int, int, int, int, int] | None = None  # the app's sessions, requests, prompts, tokens
    vscode_counts: tuple[int, int] | None = None  # VS Code agent sessions, user messages
    # CLI customizations used: category -> ((name, interaction count), ...); CLI users only.
    customizations: dict[str, tuple[tuple[str, int], ...]] | None = None
    # Entries of totals_by_feature with no language or model (copilot_app, copilot_cli): in
    # `totals`, never in `ide_totals`, the IDE's share of the day.
    feature_rows: list[tuple[str, tuple[int, ...]]] = field(default_factory=list)
    ide_totals: Sequence[int] = ZEROS
    server_side: bool = False  # active by the service's own telemetry only (emulator/telemetry.py)
    shifted: str | None = None  # misattributed as the service did (emulator/misattribution.py)
