"""Each vendor and its endpoints, declared once: where it is, what key it takes, when a day of it
stops changing, and the name each documented field lands under (docs/vendors.md, "What each
vendor sends"). The client builds its requests from these rows and the transforms read the
records through them, so a field the vendor adds is a line here, and a vendor a row and its
endpoints' module.

A field path is its keys joined by dots (`core_metrics.lines_of_code.added`); a field no row
names lands in the row's `extra` and is told as drift.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

__all__ = ["CLAUDE_CODE", "CURSOR", "ENDPOINTS", "VENDORS", "Endpoint", "Vendor"]


@dataclass(frozen=True)
class Vendor:
    name: str  # the raw archive's and the settings' name for it
    title: str  # what a person reads
    base_url: str  # the vendor's own address (a setting may point elsewhere: the emulator)
    key_advice: str  # which key reads it, and who makes one
    auth: str  # how the key is sent: "anthropic" (x-api-key, anthropic-version) or "basic" (auth.py)
    # After a day ends (on the vendor's clock, its answers' Date), when its figures stop changing:
    # Anthropic documents an hour, Cursor hourly aggregation and no day; a day more of margin each.
    final_after: timedelta
    window_days: int  # the days one request may cover
    usage: str  # the endpoint of its usage per day: a day landed final is not fetched again
    rate_per_minute: int | None  # the documented limit, None: none documented
    # The service's third-party agent apps (`agent_id`) that are this vendor's product: its use
    # through the service, which the vendor's own figures may hold too (bi.assistant_usage_daily
    # marks the overlap). The agent map is these, read from here alone (core.agent_vendors).
    agents: tuple[str, ...] = ()


@dataclass(frozen=True)
class Endpoint:
    vendor: str
    name: str  # its report kind in the raw tables, and vendors.fetches' endpoint
    method: str
    path: str
    table: str  # the table its records land in
    records: str  # the answer's key holding the records
    fields: dict[str, str]  # wire path -> column
    # A record's key: its day's column, and where that day comes from ("date": the record's own
    # `date`, one of the days asked; "read": the vendor's day at the read; any other word: that
    # key of the answer's envelope, for every record), then each other key column and the wire
    # paths naming it, the first present one used (an email, in any case, names the person too).
    day: tuple[str, str]
    who: tuple[tuple[str, tuple[str, ...]], ...]
    envelope: frozenset[str] = frozenset()  # the answer's other documented keys (never drift)
    # A record's arrays landing in tables of their own: (key, table, an element's wire path ->
    # column, its first field the element's key within its record).
    arrays: tuple[tuple[str, str, dict[str, str]], ...] = ()
    # Days of the answer's envelope each record carries: (envelope key, its DATE column).
    stamped: tuple[tuple[str, str], ...] = ()


CLAUDE_CODE = Vendor(
    name="claude_code",
    title="Claude Code (Anthropic Admin API)",
    base_url="https://api.anthropic.com",
    key_advice="an Admin API key (sk-ant-admin...) of the organization, made by an admin in the Claude Console",
    auth="anthropic",
    final_after=timedelta(days=1, hours=1),
    window_days=1,
    usage="claude_code",
    rate_per_minute=None,
    agents=("2246796",),  # the service's "Claude (Anthropic)" agent app
)
CURSOR = Vendor(
    name="cursor",
    title="Cursor (Cursor Admin API)",
    base_url="https://api.cursor.com",
    key_advice="a team Admin API key, made by a team admin in Cursor's settings (Enterprise teams)",
    auth="basic",
    final_after=timedelta(days=1),
    window_days=30,
    usage="daily_usage",
    rate_per_minute=20,
)
VENDORS: dict[str, Vendor] = {v.name: v for v in (CLAUDE_CODE, CURSOR)}

_TOOLS = ("edit_tool", "multi_edit_tool", "write_tool", "notebook_edit_tool")
# A Claude Code record's fields but its model breakdown, which lands per model.
_CLAUDE_CODE_DAY = {
    "date": "day",
    "actor.type": "actor_type",
    "actor.email_address": "email",
    "actor.api_key_name": "api_key_name",
    "organization_id": "organization_id",
    "customer_type": "customer_type",
    "subscription_type": "subscription_type",
    "terminal_type": "terminal_type",
    "core_metrics.num_sessions": "num_sessions",
    "core_metrics.lines_of_code.added": "lines_added",
    "core_metrics.lines_of_code.removed": "lines_removed",
    "core_metrics.commits_by_claude_code": "commits",
    "core_metrics.pull_requests_by_claude_code": "pull_requests",
    **{
        f"tool_actions.{tool}.{verdict}": f"{tool}_{verdict}" for tool in _TOOLS for verdict in ("accepted", "rejected")
    },
}
# One element of a record's `model_breakdown`.
_CLAUDE_CODE_MODEL = {
    "model": "model",
    "tokens.input": "input_tokens",
    "tokens.output": "output_tokens",
    "tokens.cache_read": "cache_read_tokens",
    "tokens.cache_creation": "cache_creation_tokens",
    "estimated_cost.amount": "estimated_cost_cents",
    "estimated_cost.currency": "currency",
}
# `userId` is a number here (members' and spend's are encoded texts): it lands as its text.
_CURSOR_DAY = {
    "date": "day",
    "day": "day",
    "email": "email",
    "userId": "user_id",
    "isActive": "is_active",
    "totalLinesAdded": "total_lines_added",
    "totalLinesDeleted": "total_lines_deleted",
    "acceptedLinesAdded": "accepted_lines_added",
    "acceptedLinesDeleted": "accepted_lines_deleted",
    "totalApplies": "total_applies",
    "totalAccepts": "total_accepts",
    "totalRejects": "total_rejects",
    "totalTabsShown": "total_tabs_shown",
    "totalTabsAccepted": "total_tabs_accepted",
    "composerRequests": "composer_requests",
    "chatRequests": "chat_requests",
    "agentRequests": "agent_requests",
    "cmdkUsages": "cmdk_usages",
    "subscriptionIncludedReqs": "subscription_included_reqs",
    "apiKeyReqs": "api_key_reqs",
    "usageBasedReqs": "usage_based_reqs",
    "bugbotUsages": "bugbot_usages",
    "mostUsedModel": "most_used_model",
    "applyMostUsedExtension": "apply_most_used_extension",
    "tabMostUsedExtension": "tab_most_used_extension",
    "clientVersion": "client_version",
}
_CURSOR_SPEND = {
    "userId": "user_id",
    "email": "email",
    "name": "name",
    "role": "role",
    "spendCents": "spend_cents",
    "overallSpendCents": "overall_spend_cents",
    "fastPremiumRequests": "fast_premium_requests",
    "hardLimitOverrideDollars": "hard_limit_override_dollars",
    "monthlyLimitDollars": "monthly_limit_dollars",
    "effectivePerUserLimitDollars": "effective_per_user_limit_dollars",
}
_CURSOR_MEMBER = {"id": "user_id", "email": "email", "name": "name", "role": "role", "isRemoved": "is_removed"}

_BY_EMAIL: tuple[tuple[str, tuple[str, ...]], ...] = (("email", ("email",)),)
ENDPOINTS: dict[str, Endpoint] = {
    e.name: e
    for e in (
        Endpoint(
            "claude_code",
            "claude_code",
            "GET",
            "/v1/organizations/usage_report/claude_code",
            "vendors.claude_code_days",
            "data",
            _CLAUDE_CODE_DAY,
            ("day", "date"),
            (("actor_type", ("actor.type",)), ("actor", ("actor.email_address", "actor.api_key_name"))),
            frozenset({"has_more", "next_page"}),
            (("model_breakdown", "vendors.claude_code_models", _CLAUDE_CODE_MODEL),),
        ),
        Endpoint(
            "cursor",
            "daily_usage",
            "POST",
            "/teams/daily-usage-data",
            "vendors.cursor_days",
            "data",
            _CURSOR_DAY,
            ("day", "date"),
            _BY_EMAIL,
            frozenset({"period", "pagination"}),
        ),
        Endpoint(
            "cursor",
            "spend",
            "POST",
            "/teams/spend",
            "vendors.cursor_spend",
            "teamMemberSpend",
            _CURSOR_SPEND,
            # Every read is kept (a day's spend is the difference of two reads of its cycle).
            ("read_day", "read"),
            _BY_EMAIL,
            frozenset({"subscriptionCycleStart", "totalMembers", "totalPages"}),
            stamped=(("subscriptionCycleStart", "cycle_start"),),
        ),
        Endpoint(
            "cursor",
            "members",
            "GET",
            "/teams/members",
            "vendors.cursor_members",
            "teamMembers",
            _CURSOR_MEMBER,
            ("snapshot_day", "read"),
            _BY_EMAIL,
        ),
    )
}
