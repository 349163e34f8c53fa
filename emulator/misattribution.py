"""The service's documented misattribution windows, as it served them (pipelines/warehouse/incidents.py
declares the same windows for the warehouse).

- **Desktop app as CLI** (APP_AS_CLI_FROM .. APP_AS_CLI_TO, September 2026): the service reported
  desktop-app activity as CLI activity (its changelog: app users about 78% low, CLI users about
  42% high). On about APP_AS_CLI_BELOW/256 of a September user-day with app activity, the day is
  served as if the app were the CLI: `used_*_app` false, no app object, `used_cli` true, the
  app's sessions, requests, prompts and tokens added to `totals_by_cli`, and the `copilot_app`
  entry's counts inside the `copilot_cli` entry (the top-level counts stay). A user active only
  in the app that day is then served as a CLI-only user, and the aggregate counts them as it
  counts CLI-only users: in `daily_active_cli_users`, not in `daily_active_users`.
- **IDE agent sessions through the SDK** (from SDK_FROM, the changelog of 2026-10-06, until the
  user's IDE updated): a day's agent-mode activity (`chat_panel_agent_mode`, `agent_edit`, the
  VS Code agent's sessions) is missing (about half of such days: its counts, `used_agent` and
  `used_vscode_agent` gone) or counted as CLI (the rest: the same flags gone, `used_cli` true,
  the agent's counts in the `copilot_cli` entry, its sessions and interactions in
  `totals_by_cli`; the top-level counts stay). A user's VS Code updates (1.139.0) on a day of
  the VSCODE_UPDATE_DAYS after SDK_FROM, any other IDE on a day of November (OTHERS_FIXED_BY at
  the latest), each by a hash of (seed, user, IDE).

From a stream of bytes of their own (SHIFT_BYTES per user and day), so every number outside the
windows stays as it was.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Sequence
from datetime import date, timedelta
from typing import Any

from emulator.recordjson import ZEROS, add, column_sums

APP_AS_CLI_FROM, APP_AS_CLI_TO = date(2026, 9, 1), date(2026, 9, 30)
APP_AS_CLI_BELOW = 200  # out of 256: about 78% of the app's user-days
SDK_FROM = date(2026, 10, 6)
VSCODE_UPDATE_DAYS = 21
OTHERS_UPDATE_FROM, OTHERS_FIXED_BY = date(2026, 11, 1), date(2026, 11, 30)
SDK_AS_CLI_BELOW = 128  # out of 256, among the window's agent days: counted as CLI, else missing
SHIFT_BYTES = 2
AGENT_MODE_FEATURES = ("chat_panel_agent_mode", "agent_edit")
CLI_FEATURE, APP_FEATURE = "copilot_cli", "copilot_app"
# What happened to a user-day (_UserDay.shifted): the names tests read.
APP_AS_CLI, SDK_AS_CLI, SDK_MISSING = "app_as_cli", "sdk_as_cli", "sdk_missing"


def shift_bytes(seed_key: int, users: int) -> bytes:
    return random.Random(seed_key).randbytes(users * SHIFT_BYTES)


def in_a_window(day: date) -> bool:
    return APP_AS_CLI_FROM <= day <= APP_AS_CLI_TO or SDK_FROM <= day <= OTHERS_FIXED_BY


def app_as_cli(b: bytes, o: int, day: date) -> bool:
    """Whether a user-day's app activity is served as the CLI's."""
    return APP_AS_CLI_FROM <= day <= APP_AS_CLI_TO and b[o] < APP_AS_CLI_BELOW


def updated_on(seed: int, u: int, ide: str) -> date:
    """The day user u's `ide` updated past the SDK change (VS Code: 1.139.0)."""
    h = int.from_bytes(hashlib.blake2b(repr(("ide-update", seed, u, ide)).encode(), digest_size=8).digest(), "little")
    if ide == "vscode":
        return SDK_FROM + timedelta(days=h % VSCODE_UPDATE_DAYS)
    return OTHERS_UPDATE_FROM + timedelta(days=h % ((OTHERS_FIXED_BY - OTHERS_UPDATE_FROM).days + 1))


def agent_moved(seed: int, u: int, ide: str, day: date) -> bool:
    """Whether a day's IDE agent sessions were missing or counted as CLI."""
    return SDK_FROM <= day < updated_on(seed, u, ide)


def _merge_into_cli(d: Any, counts: Sequence[int], cli: Sequence[int]) -> None:
    """Adds a day's activity to its CLI: the `copilot_cli` entry and the CLI's object."""
    rows = dict(d.feature_rows)
    merged = list(rows.get(CLI_FEATURE, ZEROS))
    add(merged, counts)
    rows[CLI_FEATURE] = tuple(merged)
    d.feature_rows = list(rows.items())
    total = list(d.cli or (0,) * 5)
    add(total, cli)
    d.cli, d.used_cli = tuple(total), True


def apply(d: Any, *, b: bytes, o: int, seed: int, u: int, day: date) -> Any:
    """A user-day (_UserDay) as the service served it on `day`; unchanged outside the windows."""
    if d.app_counts is not None and app_as_cli(b, o, day):
        rows = dict(d.feature_rows)
        app_counts = rows.pop(APP_FEATURE, ZEROS)
        d.feature_rows = list(rows.items())
        _merge_into_cli(d, app_counts, d.app_counts)
        d.app, d.app_counts, d.shifted = False, None, APP_AS_CLI
    elif d.used_agent and agent_moved(seed, u, d.ide, day):
        moved = [rows for f, _, rows in d.features if f in AGENT_MODE_FEATURES]
        d.features = [entry for entry in d.features if entry[0] not in AGENT_MODE_FEATURES]
        d.ide_totals = column_sums([row for _, _, rows in d.features for row in rows])
        counts = column_sums([row for rows in moved for row in rows])
        sessions = d.vscode_counts[0] if d.vscode_counts else 1
        d.used_agent, d.vscode_agent, d.vscode_counts = False, False, None
        if b[o + 1] < SDK_AS_CLI_BELOW:
            requests = max(1, counts[1])
            _merge_into_cli(d, counts, (sessions, requests, counts[0], requests * 400, requests * 3000))
            d.shifted = SDK_AS_CLI
        else:
            d.shifted = SDK_MISSING
        d.totals = column_sums([d.ide_totals, *(c for _, c in d.feature_rows)])
    return d
