"""A CLI user's day: the CLI's counts and its customizations (September 2026), from the day's
bytes and a hash of their own, for a day with IDE activity and a CLI-only day alike."""

from __future__ import annotations

# The CLI's customizations a user may use (September 2026): names a customer defined come
# grouped as "other" ("custom" for slash commands). The "pdf" skill belongs to the "docs-kit"
# plugin, so a plugin's count is always inside the skills' (never added to them).
CUSTOMIZATIONS: dict[str, tuple[str, ...]] = {
    "skill": ("pdf", "xlsx", "frontend-design", "other"),
    "custom_agent": ("reviewer", "other"),
    "mcp": ("github-mcp-server", "playwright", "other"),
    "slash_cmd": ("/plan", "/review", "/model", "custom"),
}


def cli_counts(b: bytes, o: int, c: float) -> tuple[int, int, int, int, int]:
    """The CLI's sessions, requests, prompts, output and prompt tokens of a user-day (its day
    bytes `b` at `o`), scaled by completeness `c`."""
    r1, r2 = b[o + 12], b[o + 13]
    sessions = 1 + r1 % 4
    requests = sessions * (2 + r2 % 8)
    raw = (sessions, requests, requests - r2 % 2 * sessions, requests * (300 + 4 * r1), requests * (2500 + 30 * r2))
    return raw if c >= 1.0 else (int(raw[0] * c), int(raw[1] * c), int(raw[2] * c), int(raw[3] * c), int(raw[4] * c))


def customizations(bits: int, c: float) -> dict[str, tuple[tuple[str, int], ...]]:
    """A CLI user's customizations of the day from the 64 bits of its hash (every older number
    stays as it was)."""
    out: dict[str, tuple[tuple[str, int], ...]] = {}
    for category, names in CUSTOMIZATIONS.items():
        used = []
        for name in names:
            if bits & 3 == 0:
                used.append((name, int((1 + (bits >> 2) % 9) * c)))
            bits = (bits >> 5) | ((bits & 31) << 59)  # rotate: every name gets its own bits
        out[category] = tuple(used)
    pdf = dict(out["skill"]).get("pdf")
    # After 13 turns of 5 bits, bit 0 and 1 are among those that chose pdf: bit 2 is not.
    out["plugin"] = (("docs-kit", pdf),) if pdf is not None and bits & 4 else ()
    return out
