"""The vendors' own usage APIs as a Dagster resource: their addresses as config, their keys only
as environment variables (Dagster keeps a resource's config in clear in its run storage)."""

from collections.abc import Callable
from dataclasses import replace
from typing import Any

import dagster as dg

from pipelines.config import VENDOR_FIELDS, Secret, Settings
from pipelines.vendors import VendorConfig

__all__ = ["VendorsResource", "vendors_resource"]


class VendorsResource(dg.ConfigurableResource["VendorsResource"]):
    """The Settings fields of the vendors (config.VENDOR_FIELDS), a line each; a key given is an
    EnvVar's value."""

    anthropic_admin_key: str | None = None
    anthropic_base_url: str | None = None
    cursor_api_key: str | None = None
    cursor_base_url: str | None = None
    identity_map_path: str | None = None  # the operator's identity file (IDENTITY_MAP_PATH)

    def configs(self) -> tuple[dict[str, VendorConfig], list[str]]:
        """Each vendor whose key is set, configured; one line for each skipped."""
        values: dict[str, Any] = {}
        for key_field, url_field in VENDOR_FIELDS.values():
            key = getattr(self, key_field)
            values |= {key_field: Secret(key) if key else None, url_field: getattr(self, url_field)}
        return replace(Settings(), **values).vendor_configs()


def vendors_resource(settings: Settings, secret: Callable[[Settings, str], Any]) -> VendorsResource:
    """The resource of `settings`: each key as `secret` gives it (its environment variable)."""
    values: dict[str, Any] = {}
    for key_field, url_field in VENDOR_FIELDS.values():
        values |= {key_field: secret(settings, key_field), url_field: getattr(settings, url_field)}
    identities = str(settings.identity_map_path) if settings.identity_map_path else None
    return VendorsResource(**values, identity_map_path=identities)
