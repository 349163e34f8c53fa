"""Scope names as the service spells them.

The service compares organization logins and enterprise slugs without regard to case, so
`ACME` and `acme` reach the same reports; landed under both spellings they would be two
organizations side by side. An organization's own spelling is its `login` (GET /orgs/{org});
enterprise slugs are lower case on the service.
"""

from __future__ import annotations

from collections.abc import Iterable

from pipelines.service.client import ServiceClient
from pipelines.service.dialect import Scope
from pipelines.service.errors import RequestFailed


def canonical_scopes(client: ServiceClient, scopes: Iterable[tuple[Scope, str]]) -> list[tuple[Scope, str]]:
    """Each scope once, under the service's spelling of its name, in the order given.

    An organization the service does not show (unknown, or hidden from this token) keeps the
    name as given: the report request then fails naming it, as it would have.
    """
    out: list[tuple[Scope, str]] = []
    seen: set[tuple[Scope, str]] = set()
    for scope, name in scopes:
        spelled = organization_login(client, name) if scope == "organization" else name.lower()
        if (scope, spelled.lower()) not in seen:
            seen.add((scope, spelled.lower()))
            out.append((scope, spelled))
    return out


def organization_login(client: ServiceClient, name: str) -> str:
    """The organization's login as the service spells it; `name` if it shows none."""
    try:
        record = client.get_json(path=f"/orgs/{name}")
    except RequestFailed:
        return name
    login = record.get("login") if isinstance(record, dict) else None
    return login if isinstance(login, str) and login.lower() == name.lower() else name
