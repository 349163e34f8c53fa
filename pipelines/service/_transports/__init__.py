"""Transports the client stacks on the real one (httpx's seam, so tests swap what is below)."""

from pipelines.service._transports.cache import CACHE_IDENTITY, NOT_MODIFIED, CachingTransport, forget_cached
from pipelines.service._transports.default import default_transport

__all__ = ["CACHE_IDENTITY", "NOT_MODIFIED", "CachingTransport", "default_transport", "forget_cached"]
