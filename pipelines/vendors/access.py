"""What a vendor's key can read, asked the cheapest way (`metrics-etl check`): one small request
per endpoint the pipeline reads (reads.READS' probes; docs/vendors.md). A refused key stops at
the first: every other request would be refused alike."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from pipelines.vendors.client import VendorClient
from pipelines.vendors.errors import Denied, VendorError
from pipelines.vendors.fetched import records_of
from pipelines.vendors.reads import READS
from pipelines.vendors.wire import ENDPOINTS, Endpoint

__all__ = ["Access", "check_vendor"]


@dataclass(frozen=True)
class Access:
    endpoint: Endpoint
    records: int  # what the probe's answer held
    error: VendorError | None = None


def check_vendor(client: VendorClient, day: date) -> list[Access]:
    """Each endpoint of the vendor, probed for `day` where it takes one; a refusal ends it."""
    found: list[Access] = []
    for name, probe in READS[client.vendor.name].probes.items():
        endpoint = ENDPOINTS[name]
        try:
            _, records = records_of(probe(client, day), endpoint, client.vendor.title)
            found.append(Access(endpoint, len(records)))
        except VendorError as exc:
            found.append(Access(endpoint, 0, exc))
            if isinstance(exc, Denied) and exc.status == 401:
                break
    return found
