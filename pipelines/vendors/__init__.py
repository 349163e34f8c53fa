"""The vendors' own usage APIs (Claude Code's analytics, Cursor's Admin API): a library with its
own frozen configuration, importing nothing else of the project (docs/vendors.md)."""

from pipelines.vendors._secret import Key
from pipelines.vendors.client import Answer, VendorClient
from pipelines.vendors.config import VendorConfig, vendor_config
from pipelines.vendors.errors import (
    Denied,
    Malformed,
    RateLimited,
    RequestFailed,
    ServerError,
    TransportFailed,
    Unreachable,
    VendorError,
)
from pipelines.vendors.fetched import Fetched
from pipelines.vendors.wire import ENDPOINTS, VENDORS, Endpoint, Vendor

__all__ = [
    "ENDPOINTS",
    "VENDORS",
    "Answer",
    "Denied",
    "Endpoint",
    "Fetched",
    "Key",
    "Malformed",
    "RateLimited",
    "RequestFailed",
    "ServerError",
    "TransportFailed",
    "Unreachable",
    "Vendor",
    "VendorClient",
    "VendorConfig",
    "VendorError",
    "vendor_config",
]
