"""The agent surfaces of a user's day (the service's cloud agent, the desktop app, VS Code agents)
and their counts, each from a per-day byte stream of its own: they came later than the other
numbers of a day, and every older number stays as it was."""

from __future__ import annotations

import random
from functools import lru_cache

from emulator.population import BLOCK, Profile, key

_SURFACE_BYTES = 2
_SURFACE_COUNT_BYTES = 3  # the app's and VS Code agents' counts: a stream of their own


class Surfaces:
    """The agent surfaces of the user-days of a population of seed `seed`."""

    def __init__(self, seed: int) -> None:
        self.seed = seed
        self._surface_block = lru_cache(maxsize=512)(self._make_surface_block)
        self._surface_count_block = lru_cache(maxsize=512)(self._make_surface_count_block)

    def _make_surface_count_block(self, ordinal: int, block: int) -> bytes:
        # Their own stream too: the surfaces' flags stay as they were before the counts came.
        return random.Random(key("surface-counts", self.seed, ordinal, block)).randbytes(BLOCK * _SURFACE_COUNT_BYTES)

    def _make_surface_block(self, ordinal: int, block: int) -> bytes:
        # A stream of its own: the agent surfaces came later, and every older number stays as it was.
        return random.Random(key("surfaces", self.seed, ordinal, block)).randbytes(BLOCK * _SURFACE_BYTES)

    def flags(
        self, u: int, p: Profile, ordinal: int, *, active: bool, agent_mode: bool, ide: str
    ) -> tuple[bool, bool, bool]:
        """(cloud agent, app, VS Code agent) for an active user's day."""
        if not active:
            return False, False, False
        s = self._surface_block(ordinal, u // BLOCK)
        o = (u % BLOCK) * _SURFACE_BYTES
        return s[o] < p.cloud_agent_threshold, s[o + 1] < p.app_threshold, agent_mode and ide == "vscode"

    def counts(
        self, u: int, ordinal: int, *, app: bool, vscode_agent: bool, c: float
    ) -> tuple[tuple[int, int, int, int, int] | None, tuple[int, int] | None]:
        """The app's (sessions, requests, prompts, output and prompt tokens) and VS Code agents'
        (sessions, messages) of a user's day, scaled as the day's other counts; None where the
        surface was not used."""
        if not (app or vscode_agent):
            return None, None
        s = self._surface_count_block(ordinal, u // BLOCK)
        o = (u % BLOCK) * _SURFACE_COUNT_BYTES
        app_counts = vscode_counts = None
        if app:
            sessions = 1 + s[o] % 4
            requests = sessions * (1 + s[o + 2] % 6)
            app_counts = (
                int(sessions * c),
                int(requests * c),
                int((requests - s[o] % 2) * c),
                int(requests * (150 + 3 * s[o + 1]) * c),
                int(requests * (1800 + 20 * s[o + 2]) * c),
            )
        if vscode_agent:
            sessions = 1 + s[o + 1] % 3
            vscode_counts = (int(sessions * c), int(sessions * (2 + s[o + 2] % 9) * c))
        return app_counts, vscode_counts
