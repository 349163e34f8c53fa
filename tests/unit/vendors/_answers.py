"""The vendors' documented example answers (docs/vendors.md, "What each vendor sends": Cursor's current
page), and a
client over an `httpx.MockTransport` of handlers, for the library's unit tests."""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from typing import Any

import httpx

from pipelines.transform.vendor_values import record_text
from pipelines.vendors import Key, VendorClient, vendor_config
from pipelines.vendors._retry import RetryPolicy

DATE = "Sat, 28 Nov 2026 10:00:00 GMT"
CLAUDE_KEY = "sk-ant-admin01-test-key-0123456789"
CURSOR_KEY = "key_" + "ab" * 32

CLAUDE_RECORD: dict[str, Any] = {
    "actor": {"email_address": "user@emaildomain.com", "type": "user_actor"},
    "core_metrics": {
        "commits_by_claude_code": 8,
        "lines_of_code": {"added": 342, "removed": 128},
        "num_sessions": 15,
        "pull_requests_by_claude_code": 2,
    },
    "customer_type": "api",
    "date": "2025-08-08T00:00:00Z",
    "model_breakdown": [
        {
            "estimated_cost": {"amount": 186, "currency": "USD"},
            "model": "claude-sonnet-4-20250514",
            "tokens": {"cache_creation": 2340, "cache_read": 8790, "input": 45230, "output": 12450},
        },
        {
            "estimated_cost": {"amount": 42, "currency": "USD"},
            "model": "claude-3-5-haiku-20241022",
            "tokens": {"cache_creation": 890, "cache_read": 3420, "input": 23100, "output": 5680},
        },
    ],
    "organization_id": "12345678-1234-5678-1234-567812345678",
    "terminal_type": "iTerm.app",
    "tool_actions": {
        "edit_tool": {"accepted": 25, "rejected": 3},
        "multi_edit_tool": {"accepted": 12, "rejected": 1},
        "notebook_edit_tool": {"accepted": 5, "rejected": 2},
        "write_tool": {"accepted": 8, "rejected": 0},
    },
    "subscription_type": "enterprise",
}
CURSOR_DAY: dict[str, Any] = {
    "userId": 12345,
    "day": "2024-03-18",
    "date": 1710720000000,
    "isActive": True,
    "totalLinesAdded": 1543,
    "totalLinesDeleted": 892,
    "acceptedLinesAdded": 1102,
    "acceptedLinesDeleted": 645,
    "totalApplies": 87,
    "totalAccepts": 73,
    "totalRejects": 14,
    "totalTabsShown": 342,
    "totalTabsAccepted": 289,
    "composerRequests": 45,
    "chatRequests": 128,
    "agentRequests": 12,
    "cmdkUsages": 67,
    "subscriptionIncludedReqs": 180,
    "apiKeyReqs": 0,
    "usageBasedReqs": 5,
    "bugbotUsages": 3,
    "mostUsedModel": "gpt-4",
    "applyMostUsedExtension": ".tsx",
    "tabMostUsedExtension": ".ts",
    "clientVersion": "0.25.1",
    "email": "developer@company.com",
}
CURSOR_SPEND: dict[str, Any] = {
    "teamMemberSpend": [
        {
            "userId": "user_PDSPmvukpYgZEDXsoNirw3CFhy",
            "spendCents": Decimal("2450.125487"),
            "overallSpendCents": Decimal("2450.125487"),
            "fastPremiumRequests": 1250,
            "name": "Alex",
            "email": "developer@company.com",
            "role": "member",
            "hardLimitOverrideDollars": 100,
            "monthlyLimitDollars": 200,
            "effectivePerUserLimitDollars": 100,
        },
        {
            "userId": "user_kljUvI0ASZORvSEXf9hV0ydcso",
            "spendCents": Decimal("1875.500123"),
            "overallSpendCents": Decimal("3200.750456"),
            "fastPremiumRequests": 980,
            "name": "Sam",
            "email": "admin@company.com",
            "role": "owner",
            "hardLimitOverrideDollars": 0,
            "monthlyLimitDollars": None,
            "effectivePerUserLimitDollars": 50,
        },
    ],
    "subscriptionCycleStart": 1708992000000,
    "totalMembers": 15,
    "totalPages": 1,
}
CURSOR_MEMBERS: dict[str, Any] = {
    "teamMembers": [
        {
            "id": "user_PDSPmvukpYgZEDXsoNirw3CFhy",
            "name": "Alex",
            "email": "developer@company.com",
            "role": "member",
            "isRemoved": False,
        },
        {
            "id": "user_kljUvI0ASZORvSEXf9hV0ydcso",
            "name": "Sam",
            "email": "admin@company.com",
            "role": "owner",
            "isRemoved": False,
        },
    ]
}

Handler = Callable[[httpx.Request], httpx.Response]


def answer(body: Any, status: int = 200, headers: dict[str, str] | None = None) -> httpx.Response:
    return httpx.Response(status, content=record_text(body).encode(), headers={"date": DATE, **(headers or {})})


def client(name: str, handler: Handler, *, sleeps: list[float] | None = None, max_wait: float = 180.0) -> VendorClient:
    """A client of vendor `name` whose answers are `handler`'s; its waits appended to `sleeps`."""
    key = CLAUDE_KEY if name == "claude_code" else CURSOR_KEY
    config = vendor_config(
        name,
        key=Key(key),
        base_url="http://vendor.test",
        key_setting=f"{name.upper()}_KEY",
        url_setting=f"{name.upper()}_URL",
        max_wait=max_wait,
    )
    waits = sleeps if sleeps is not None else []
    return VendorClient(
        config, transport=httpx.MockTransport(handler), sleep=waits.append, retry=RetryPolicy(backoff_initial=0.01)
    )
