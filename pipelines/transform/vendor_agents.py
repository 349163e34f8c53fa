"""The agent map: which of the service's third-party agent apps is which vendor's product, derived
from the vendors' declarations (pipelines/vendors/wire.py, `Vendor.agents`), never listed twice.

`migrate` writes it into core.agent_vendors (pipelines/warehouse/vendor_agents.py), which
bi.assistant_usage_daily reads to mark an agent app's use through the service beside the same
vendor's own figures.
"""

from __future__ import annotations

from pipelines.vendors.wire import VENDORS

__all__ = ["AGENT_VENDORS"]

# (agent_id, vendor), sorted: an agent app is one vendor's at most.
AGENT_VENDORS: tuple[tuple[str, str], ...] = tuple(
    sorted((agent_id, vendor.name) for vendor in VENDORS.values() for agent_id in vendor.agents)
)
