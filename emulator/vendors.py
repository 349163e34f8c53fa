"""The vendors a team also buys directly, served beside the service on the same loopback server
(docs/emulator.md, "Vendors"): Anthropic's Claude Code analytics and Cursor's Admin API, each
under its own prefix with its own key, for the people of the primary organization and its
enterprise. `EmulatorConfig.vendors` says which are served; an unserved vendor's paths answer
404 and the credentials name neither its URL nor its key."""

from __future__ import annotations

import hashlib

from starlette.routing import Route

from emulator.reportdata import ReportData
from emulator.state import EmulatorState
from emulator.vendor_claude import ClaudeCodeRoutes
from emulator.vendor_claude_data import ClaudeCodeData
from emulator.vendor_cursor import CursorRoutes
from emulator.vendor_cursor_data import CursorData
from emulator.vendor_http import ANTHROPIC, CURSOR
from emulator.vendor_people import VendorPeople


def vendor_keys(seed: int) -> dict[str, str]:
    """Each vendor's key: an Admin API key as Anthropic formats it, a Cursor Admin API key."""

    def secret(purpose: str) -> str:
        return hashlib.sha256(f"{seed}:{purpose}".encode()).hexdigest()

    return {"claude": "sk-ant-admin01-" + secret("anthropic-admin-key")[:48], "cursor": "key_" + secret("cursor-key")}


def vendor_routes(state: EmulatorState, data: ReportData) -> list[Route]:
    config = state.config
    people = VendorPeople(data)
    keys = vendor_keys(config.seed)
    routes: list[Route] = []
    if "claude" in config.vendors:
        claude = ClaudeCodeRoutes(
            state, ClaudeCodeData(people), admin_key=keys["claude"], per_minute=config.claude_requests_per_minute
        )
        routes += claude.table()
    if "cursor" in config.vendors:
        cursor = CursorRoutes(
            state, CursorData(people), api_key=keys["cursor"], per_minute=config.cursor_requests_per_minute
        )
        routes += cursor.table()
    return routes


def vendor_credentials(state: EmulatorState, *, base_url: str) -> dict[str, str]:
    """The credentials' entries of the vendors served: each one's base URL and key."""
    served = state.config.vendors
    keys = vendor_keys(state.config.seed)
    out: dict[str, str] = {}
    if "claude" in served:
        out |= {"anthropic_base_url": base_url + ANTHROPIC, "anthropic_admin_key": keys["claude"]}
    if "cursor" in served:
        out |= {"cursor_base_url": base_url + CURSOR, "cursor_api_key": keys["cursor"]}
    return out
