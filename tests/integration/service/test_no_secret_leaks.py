"""No token, private key, client secret, OAuth code or signed query in any log record or error."""

import dataclasses
import logging
import traceback
from pathlib import Path

import httpx
import pytest

from emulator import FaultSpec
from pipelines.service import (
    AppAuth,
    AuthenticationFailed,
    LinkExpired,
    NotFound,
    ReportRef,
    Secret,
    ServiceClient,
    ServiceError,
    TruncatedDownload,
    fetch_report_metadata,
    oauth_login,
    open_report_file,
)

from .conftest import config_for, settings_for


def test_no_secret_reaches_a_log_record_or_an_exception(emu, tmp_path, clock, caplog) -> None:
    caplog.set_level(logging.DEBUG)
    for name in ("httpx", "httpcore", "pipelines"):
        caplog.set_level(logging.DEBUG, logger=name)
    errors: list[BaseException] = []
    secrets: set[str] = {emu.credentials["token"], emu.credentials["limited_token"], emu.credentials["client_secret"]}
    pem = Path(emu.credentials["app_private_key_path"]).read_text()
    secrets |= {line for line in pem.splitlines() if "-----" not in line and len(line) > 20}

    def expect(kind: type[ServiceError], call) -> None:
        with pytest.raises(kind) as info:
            call()
        errors.append(info.value)

    ref = ReportRef(scope="organization", scope_name="acme", kind="28-day", level="user")
    with ServiceClient(config=config_for(emu, tmp_path), clock=clock, sleep=clock.sleep) as client:
        list(client.paginate(path="/orgs/acme/members", params={"per_page": 3}))
        client.get_json(path="/orgs/acme/members")
        expect(NotFound, lambda: client.get_json(path="/repos/acme/none"))
        links = fetch_report_metadata(client, ref).links
        secrets |= {httpx.URL(link).params["signature"] for link in links}
        with open_report_file(client, links[0]) as stream:
            assert b"".join(stream.iter_bytes())
        expect(LinkExpired, lambda: _drain(client, links[0][:-6] + "abcdef"))
        emu.set_faults(FaultSpec(truncate_rate=1.0))
        expect(TruncatedDownload, lambda: _drain(client, links[0]))
        emu.set_faults(FaultSpec(drop_rate=1.0))
        expect(ServiceError, lambda: _drain(client, links[0]))
        emu.set_faults(FaultSpec())

    app_settings = settings_for(emu, tmp_path, auth="app")
    auth = AppAuth(
        app_id=app_settings.app_id,
        private_key=app_settings.app_private_key,
        installation_id=app_settings.installation_id,
        base_url=app_settings.base_url,
        clock=clock,
    )
    app_config = dataclasses.replace(app_settings.service_config(), auth=auth)
    with ServiceClient(config=app_config, clock=clock, sleep=clock.sleep) as app:
        app.get_json(path="/orgs/acme/members", conditional=False)
    # The cached installation token, read back without another exchange: the flow's first
    # request is then the one it authenticates.
    flow = auth.sync_auth_flow(httpx.Request("GET", f"{emu.base_url}/user"))
    authenticated = next(flow)
    flow.close()
    assert not authenticated.url.path.endswith("/access_tokens"), "no second exchange"
    secrets.add(authenticated.headers["Authorization"].split()[-1])

    with ServiceClient(
        config=config_for(emu, tmp_path, SERVICE_TOKEN="wrong-token-abcdef123"), clock=clock, sleep=clock.sleep
    ) as bad:
        expect(AuthenticationFailed, lambda: bad.get_json(path="/user"))
    secrets.add("wrong-token-abcdef123")

    codes: list[str] = []

    def browser(url: str) -> None:
        location = httpx.get(url).headers["location"]
        codes.append(httpx.URL(location).params["code"])
        httpx.get(location)

    token_file = oauth_login(
        oauth_url=emu.base_url,
        client_id=emu.credentials["client_id"],
        client_secret=Secret(emu.credentials["client_secret"]),
        token_file=tmp_path / "token",
        open_browser=browser,
    )
    secrets |= {token_file.read_text(), *codes}

    logged = "\n".join(record.getMessage() for record in caplog.records)
    raised = "\n".join(str(e) + repr(e) + "".join(traceback.format_exception(e)) for e in errors)
    # The paths above really were logged (so redaction, not silence, keeps them clean).
    assert "/_downloads/" in logged and "/login/oauth/" in logged and "access_tokens" in logged
    assert len(errors) == 5
    for secret in secrets:
        assert secret not in logged, "a secret reached a log record"
        assert secret not in raised, "a secret reached an exception"


def _drain(client: ServiceClient, link: str) -> None:
    with open_report_file(client, link) as stream:
        for _ in stream.iter_bytes():
            pass
