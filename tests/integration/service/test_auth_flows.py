import dataclasses
import os
import stat
import webbrowser

import httpx
import pytest

from pipelines.cli import main
from pipelines.config import Settings
from pipelines.service import AppAuth, AuthenticationFailed, Secret, ServiceClient, oauth_login

from .conftest import config_for, env_for, settings_for


def _app_exchanges(emu) -> int:
    return emu.stats()["requests"].get("app 201", 0)


def test_one_installation_token_exchange_serves_many_requests(emu, tmp_path, clock) -> None:
    before = _app_exchanges(emu)
    with ServiceClient(config=config_for(emu, tmp_path, auth="app"), clock=clock, sleep=clock.sleep) as client:
        for _ in range(12):
            client.get_json(path="/orgs/acme/members", conditional=False)
        assert client.stats.token_exchanges == 1
    assert _app_exchanges(emu) - before == 1


def test_the_installation_token_is_renewed_shortly_before_it_expires(emu, tmp_path, clock) -> None:
    settings = settings_for(emu, tmp_path, auth="app")
    # The emulator's tokens live an hour of real time; a wide renewal margin brings the renewal
    # point within seconds, so the JWT signed at the fake "later" is still valid for the server.
    auth = AppAuth(
        app_id=settings.app_id,
        private_key=settings.app_private_key,
        installation_id=settings.installation_id,
        base_url=settings.base_url,
        clock=clock,
        renew_before=3600 - 10,
    )
    before = _app_exchanges(emu)
    config = dataclasses.replace(settings.service_config(), auth=auth)
    with ServiceClient(config=config, clock=clock, sleep=clock.sleep) as client:
        client.get_json(path="/orgs/acme/members", conditional=False)
        clock.now += 5
        client.get_json(path="/orgs/acme/members", conditional=False)
        assert auth.exchanges == 1
        clock.now += 10
        client.get_json(path="/orgs/acme/members", conditional=False)
    assert auth.exchanges == 2
    assert _app_exchanges(emu) - before == 2


def test_a_wrong_app_key_fails_with_advice(emu, tmp_path, clock, rsa_key_pem) -> None:
    env = env_for(emu, tmp_path, auth="app") | {"SERVICE_APP_PRIVATE_KEY": rsa_key_pem}
    env.pop("SERVICE_APP_PRIVATE_KEY_PATH")
    with (
        ServiceClient(config=Settings.from_env(environ=env).service_config(), clock=clock, sleep=clock.sleep) as client,
        pytest.raises(AuthenticationFailed, match="SERVICE_APP_ID, the app private key"),
    ):
        client.get_json(path="/user")


def _follow(url: str) -> None:
    # Stands in for the browser: the emulator's authorize page redirects to our loopback.
    response = httpx.get(url, follow_redirects=True, timeout=30)
    assert response.status_code == 200


@pytest.fixture
def run_login(emu, tmp_path, monkeypatch, capsys):
    """`metrics-etl login` in-process, with exactly the given environment; the browser follows the link."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(webbrowser, "open", _follow)
    for name in list(os.environ):
        if name.startswith(("SERVICE_", "WEBHOOK_", "METRICS_")):
            monkeypatch.delenv(name)

    def run(**extra: str) -> tuple[int, str]:
        for name, value in env_for(emu, tmp_path, auth="none", **extra).items():
            monkeypatch.setenv(name, value)
        code = main(["login"])
        captured = capsys.readouterr()
        # What it shows on stdout, then its failure line on stderr.
        return code, captured.out + captured.err

    return run


def test_oauth_login_stores_a_working_token_owner_only(emu, tmp_path, clock, run_login) -> None:
    code, out = run_login()
    assert code == 0
    token_file = tmp_path / "token"
    assert stat.S_IMODE(token_file.stat().st_mode) == 0o600
    token = token_file.read_text()
    assert token and token not in out
    assert "/login/oauth/authorize" in out
    # SERVICE_TOKEN unset: the settings pick the stored token up.
    reread = settings_for(emu, tmp_path, auth="none")
    assert reread.token == Secret(token)
    with ServiceClient(config=reread.service_config(), clock=clock, sleep=clock.sleep) as client:
        assert client.get_json(path="/user")["login"]


def test_oauth_login_with_a_wrong_client_secret_fails_in_one_line(emu, tmp_path, run_login) -> None:
    code, out = run_login(SERVICE_CLIENT_SECRET="wrong-secret-value")
    assert code == 1
    last = out.strip().splitlines()[-1]
    assert last.startswith("metrics-etl login: login failed:") and "incorrect" in last
    assert "wrong-secret-value" not in out
    assert not (tmp_path / "token").exists()


def test_oauth_login_refuses_a_callback_without_the_state(tmp_path, emu) -> None:
    def forge(url: str) -> None:
        redirect = httpx.URL(url).params["redirect_uri"]
        httpx.get(f"{redirect}?code=forged", timeout=30)

    with pytest.raises(AuthenticationFailed, match="matching state"):
        oauth_login(
            oauth_url=emu.base_url,
            client_id=emu.credentials["client_id"],
            client_secret=Secret(emu.credentials["client_secret"]),
            token_file=tmp_path / "token",
            open_browser=forge,
        )
    assert not (tmp_path / "token").exists()
