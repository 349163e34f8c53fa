"""A vendor client's own configuration, frozen, knowing nothing of the environment: the
application builds one per vendor from its settings; a test builds one directly. `key_setting`
and `url_setting` are the names of the settings a person fixes, which the errors name."""

from __future__ import annotations

from dataclasses import dataclass

import httpx

from pipelines.vendors._secret import Key
from pipelines.vendors.auth import AnthropicAuth, BasicKeyAuth
from pipelines.vendors.wire import VENDORS, Vendor

__all__ = ["ANTHROPIC_VERSION", "VendorConfig", "vendor_config"]

ANTHROPIC_VERSION = "2023-06-01"


@dataclass(frozen=True, kw_only=True)
class VendorConfig:
    vendor: Vendor
    base_url: str
    auth: httpx.Auth
    key_setting: str = "the vendor's key"
    url_setting: str = "the vendor's address"
    timeout: float = 30.0  # seconds an answer has to arrive whole (each read of it bounded alike)
    max_wait: float = 180.0  # the most a request waits in all once a rate limit asks it to wait
    page_size: int = 1000  # records asked per page (Claude Code: at most 1000)
    # An answer's body at most, no setting: a page of 1,000 Claude Code records is about 2 MB; a
    # 30-day window of Cursor's days fills it only with some 2,000 people active every day.
    max_bytes: int = 48 << 20

    def __post_init__(self) -> None:
        if not self.base_url.lower().startswith(("http://", "https://")):
            raise ValueError(f"{self.url_setting} must start with http:// or https://, not {self.base_url!r}")


def vendor_config(
    name: str, *, key: Key, base_url: str | None = None, key_setting: str, url_setting: str, max_wait: float = 180.0
) -> VendorConfig:
    """The configuration of vendor `name` (wire.VENDORS) with its key as that vendor takes it."""
    vendor = VENDORS[name]
    auth: httpx.Auth = (
        AnthropicAuth(key=key, version=ANTHROPIC_VERSION) if vendor.auth == "anthropic" else BasicKeyAuth(key=key)
    )
    return VendorConfig(
        vendor=vendor,
        base_url=(base_url or vendor.base_url).rstrip("/"),
        auth=auth,
        key_setting=key_setting,
        url_setting=url_setting,
        max_wait=max_wait,
    )
