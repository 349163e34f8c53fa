"""The real transport under a stacked one.

httpx mounts proxies from the environment (``HTTPS_PROXY``, ``NO_PROXY``, …) only when it builds
its own transport; a transport stacked on one we build must take the service's proxy itself.
"""

from __future__ import annotations

import urllib.request
from urllib.parse import urlsplit

import httpx


def default_transport(*, service_url: str) -> httpx.BaseTransport:
    """An HTTP transport, through the environment's proxy for ``service_url``'s host if it names one."""
    parts = urlsplit(service_url)
    proxy = urllib.request.getproxies().get(parts.scheme)
    if proxy and not urllib.request.proxy_bypass(parts.hostname or ""):
        return httpx.HTTPTransport(proxy=proxy)
    return httpx.HTTPTransport()
