"""`metrics-etl check`'s lines on the vendors (docs/vendors.md): one per vendor, naming what its
key can read, or why not and what to do; a vendor without a key, `skipped`. They never fail the
check: the service's data lands whatever a vendor answers."""

from __future__ import annotations

import dataclasses
from datetime import timedelta
from typing import TYPE_CHECKING

from pipelines._clock import utc_today
from pipelines.vendors import VendorClient
from pipelines.vendors.access import check_vendor

if TYPE_CHECKING:
    from pipelines.config import Settings

__all__ = ["vendor_lines"]


def vendor_lines(settings: Settings) -> list[str]:
    configs, skipped = settings.vendor_configs()
    lines = list(skipped)
    yesterday = utc_today() - timedelta(days=1)
    for config in configs.values():
        # A check must answer now: never wait for a rate limit.
        with VendorClient(dataclasses.replace(config, max_wait=0.0)) as client:
            found = check_vendor(client, yesterday)
        readable = [f"{a.endpoint.name} ({a.records} on the first page)" for a in found if a.error is None]
        refused = {str(a.error) for a in found if a.error is not None}
        title = config.vendor.title
        if readable:
            lines.append(f"{title}: OK: {', '.join(readable)} readable")
        lines += sorted(refused)
        if not readable and not refused:
            lines.append(f"{title}: nothing to read")
    return lines
