"""A scope's billing refused or failing, between ingest_billing and the loopback emulator (a proxy
transport answers the refusal): the scope is recorded and said in one line naming who may read
it, and the other scopes' billing lands."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date

import duckdb
import httpx

from emulator import EmulatorConfig, running_emulator
from pipelines.ingest.billing import ingest_billing
from pipelines.service import RetryPolicy, ServiceClient
from pipelines.service.billing_wire import Scope
from pipelines.warehouse import migrate
from tests._emulator import settings_for

FAST = RetryPolicy(max_attempts=2, backoff_initial=0.01, backoff_max=0.02)


def _run(
    refuse: Callable[[httpx.Request], httpx.Response | None],
) -> tuple[duckdb.DuckDBPyConnection, list[str], object, str]:
    with running_emulator(EmulatorConfig(dialect="github", seed=7, users=12, repos=2, today=date(2026, 11, 20))) as emu:
        upstream = httpx.Client(base_url=emu.base_url)

        def handler(request: httpx.Request) -> httpx.Response:
            refused = refuse(request)
            if refused is not None:
                return refused
            up = upstream.send(
                upstream.build_request(
                    request.method, str(request.url), headers=request.headers, content=request.content
                )
            )
            headers = {k: v for k, v in up.headers.items() if k.lower() not in ("content-length", "content-encoding")}
            return httpx.Response(up.status_code, headers=headers, content=up.content)

        conn = duckdb.connect()
        migrate(conn)
        said: list[str] = []
        scopes: list[tuple[Scope, str]] = [
            ("enterprise", emu.credentials["enterprise"]),
            ("organization", emu.credentials["org"]),
        ]
        with ServiceClient(
            config=settings_for(emu).service_config(), transport=httpx.MockTransport(handler), retry=FAST
        ) as c:
            try:
                result: object = ingest_billing(c, conn, scopes=scopes, months=1, say=said.append)
            except Exception as exc:
                result = exc
        upstream.close()
        return conn, said, result, emu.credentials["org"]


def test_a_404_on_the_enterprise_s_billing_is_recorded_failed_in_one_line_and_the_organization_s_billing_lands() -> (
    None
):
    # "the pipeline fetches them beside the reports, for every enterprise and organization in scope";
    # the billing state's 404 is "said in one line", recorded `failed`. Billing usage answering 404 for
    # one enterprise (no enhanced billing there, say) raises NotFound out of ingest_billing: the
    # organization after it is never fetched and nothing is said or recorded.
    def refuse(request: httpx.Request) -> httpx.Response | None:
        if request.url.path.startswith("/enterprises/") and "/settings/billing/" in request.url.path:
            return httpx.Response(404, json={"message": "Not Found", "documentation_url": "https://docs.example.com"})
        return None

    conn, said, result, _ = _run(refuse)
    landed = conn.execute("SELECT count(*) FROM billing.credit_usage WHERE scope = 'organization'").fetchone()
    assert landed != (0,), f"the organization's bill did not land: {result!r}, said {said}"
    (line,) = said
    assert line.startswith("billing of enterprise ") and "(404 Not Found)" in line, line
    recorded = conn.execute("SELECT scope, status, message FROM billing.fetches WHERE status <> 'ok'").fetchall()
    assert recorded == [("enterprise", "failed", "404 Not Found")]


def test_an_organization_refused_billing_is_told_the_organization_s_roles_not_the_enterprise_s() -> None:
    # "The billing endpoints need an enterprise administrator, a billing manager, or an app with billing
    # read (an organization's: an organization administrator)"; the line names who may read it. The
    # organization's line names the enterprise administrator, never the organization administrator.
    def refuse(request: httpx.Request) -> httpx.Response | None:
        if request.url.path.startswith(("/orgs/", "/organizations/")) and "/settings/billing/" in request.url.path:
            return httpx.Response(403, json={"message": "Must have admin rights or billing manager role"})
        return None

    _, said, _, org = _run(refuse)
    (line,) = [s for s in said if f"organization {org}" in s]
    assert "organization administrator" in line and "enterprise administrator" not in line, line
