"""What the service's 2026 docs add to a user-day: users it counts beyond its IDE telemetry, and
the feature entries beside the IDE's.

From a stream of bytes of its own (CLASS_BYTES per user and day), so every number the emulator
gave before stays as it was for the users and days these rules leave alone:

- **server-side only** (days from SERVER_SIDE_FROM, 2026-06-15): a user with no IDE activity
  that day whom the service confirmed active from its own side. The aggregate counts them in
  `daily_active_users` (and the weekly and monthly counts); their user-level line is there with
  every count 0, every breakdown array empty, every `used_*` flag false and the code-review
  flags null: nothing tells them from a user with no activity but the aggregate's count.
- **desktop app only** (days from APP_IN_COUNTS_FROM, 2026-07-28): a user with no IDE activity
  who used the desktop app: `used_copilot_app` true, the app's object, and one `totals_by_feature`
  entry `copilot_app` whose counts are the line's top-level counts; no IDE, language or model
  entry. From that day on the app's activity of every user is in the top-level counts so.
- **CLI only** (any day): a CLI user (one whose days may use the CLI) with no IDE activity who
  used the CLI alone: `used_cli` true, `totals_by_cli` (and the day's CLI customizations), one
  `totals_by_feature` entry `copilot_cli` whose counts are the line's top-level counts; no IDE,
  language or model entry. The service's `daily_active_users` is IDE-based and does not count
  them (nor do the weekly and monthly counts); `daily_active_cli_users` does.
- **the CLI** as a feature: a CLI user's day has a `copilot_cli` entry in `totals_by_feature`
  (counts from its CLI requests), inside the top-level counts.
- **plan mode** on some chat days: `chat_panel_plan_mode` from PLAN_MODE_FROM (2026-03-02), the
  day the service split it out, `chat_panel_custom_mode` before (as the service reported it);
  `others` and `unknown` on some active days (no chat model: left out of the model arrays, as
  completions are).

Eligible for the three classes are users who use the assistant at all (never the never-active
seat holders, nor a lapsed user after lapsing).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from datetime import date

SERVER_SIDE_FROM = date(2026, 6, 15)
APP_IN_COUNTS_FROM = date(2026, 7, 28)
PLAN_MODE_FROM = date(2026, 3, 2)
CLASS_BYTES = 4
# Out of 256, byte 0 of a day with no IDE activity: desktop app only below APP_ONLY_BELOW,
# server-side only from there to SERVER_SIDE_BELOW, the CLI only (a CLI user) to CLI_ONLY_BELOW.
APP_ONLY_BELOW = 12
SERVER_SIDE_BELOW = 32
CLI_ONLY_BELOW = 56
# Out of 256: plan mode among chat days (byte 1); `others`, then `unknown`, among active days
# (byte 2); byte 3 scales their volume.
PLAN_BELOW = 70
OTHERS_BELOW = 40
UNKNOWN_BELOW = 56

APP_FEATURE = "copilot_app"
CLI_FEATURE = "copilot_cli"
PLAN_FEATURE = "chat_panel_plan_mode"
OTHERS_FEATURE = "others"
UNKNOWN_FEATURE = "unknown"


def class_bytes(seed_key: int, users: int) -> bytes:
    """`users` slices of CLASS_BYTES from the stream keyed `seed_key` (seed, day and block)."""
    return random.Random(seed_key).randbytes(users * CLASS_BYTES)


def day_class(b: bytes, o: int, day: date, *, cli_user: bool = False) -> str | None:
    """ "app", "server" or "cli" for an eligible user's day without IDE activity, else None."""
    if day >= APP_IN_COUNTS_FROM and b[o] < APP_ONLY_BELOW:
        return "app"
    if day >= SERVER_SIDE_FROM and APP_ONLY_BELOW <= b[o] < SERVER_SIDE_BELOW:
        return "server"
    if cli_user and SERVER_SIDE_BELOW <= b[o] < CLI_ONLY_BELOW:
        return "cli"
    return None


def other_feature(b: int) -> str | None:
    """The day's activity the service could not give a listed feature, if any."""
    return OTHERS_FEATURE if b < OTHERS_BELOW else UNKNOWN_FEATURE if b < UNKNOWN_BELOW else None


def _code_counts(interactions: int, requests: int, per_request: int) -> tuple[int, ...]:
    accepted = requests // 2
    return (
        interactions,
        requests,
        accepted,
        requests * per_request,
        requests * per_request // 4,
        accepted * per_request,
        accepted * per_request // 4,
    )


def app_feature_counts(app: Sequence[int]) -> tuple[int, ...]:
    """The `copilot_app` entry's counts from the app's (sessions, requests, prompts, tokens)."""
    return _code_counts(app[2], app[1], 8)


def cli_feature_counts(cli: Sequence[int]) -> tuple[int, ...]:
    """The `copilot_cli` entry's counts from the CLI's (sessions, requests, prompts, tokens)."""
    return _code_counts(cli[2], cli[1], 6)
