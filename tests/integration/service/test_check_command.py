import os

import pytest

from pipelines.cli import main

from .conftest import CHECK_SETTINGS, env_for, service_lines


@pytest.fixture
def run_check(emu, tmp_path, monkeypatch, capsys):
    """`metrics-etl check` in-process, with exactly the given environment (no stray .env)."""
    monkeypatch.chdir(tmp_path)
    for name in list(os.environ):
        if name.startswith(CHECK_SETTINGS):
            monkeypatch.delenv(name)

    def run(*, auth: str = "token", drop: tuple[str, ...] = (), **extra: str) -> tuple[int, list[str]]:
        env = env_for(emu, tmp_path, auth=auth, **extra)
        for name in drop:
            env.pop(name)
        for name, value in env.items():
            monkeypatch.setenv(name, value)
        code = main(["check"])
        captured = capsys.readouterr()
        assert "Traceback" not in captured.out + captured.err
        return code, service_lines(captured.out)

    return run


def test_check_passes_with_one_ok_line_and_the_budget(run_check) -> None:
    code, lines = run_check()
    assert code == 0
    assert len(lines) == 1 and lines[0].startswith("OK:") and "remaining" in lines[0]


def test_check_for_an_enterprise_only_configuration(run_check, emu) -> None:
    code, lines = run_check(drop=("SERVICE_ORG",), SERVICE_ENTERPRISE=emu.credentials["enterprise"])
    assert code == 0 and "enterprise 'acme-corp'" in lines[0]


def test_check_names_bad_credentials_once(run_check) -> None:
    code, lines = run_check(SERVICE_TOKEN="not-a-real-token")
    assert code == 1
    assert len(lines) == 1 and lines[0].startswith("bad credentials:")
    assert "not-a-real-token" not in lines[0]


def test_check_names_a_missing_permission(run_check) -> None:
    code, lines = run_check(auth="limited")
    assert code == 1 and len(lines) == 1
    assert lines[0].startswith("missing permission:") and "organization owner role" in lines[0]


def test_check_names_a_disabled_policy(run_check, emu) -> None:
    emu.set_policy(scope="organization", name="acme", enabled=False)
    code, lines = run_check()
    assert code == 1 and lines[0].startswith("policy off:")


def test_check_names_an_unknown_org(run_check) -> None:
    code, lines = run_check(SERVICE_ORG="no-such-org")
    assert code == 1 and lines[0].startswith("unknown organization 'no-such-org' in SERVICE_ORG:")


def test_check_names_a_rejected_version(run_check) -> None:
    code, lines = run_check(SERVICE_API_VERSION="1999-01-01")
    assert code == 1 and len(lines) == 1 and lines[0].startswith("version rejected:")


def test_check_without_credentials_or_scope_lists_each_problem(run_check) -> None:
    code, lines = run_check(auth="none", drop=("SERVICE_ORG",))
    assert code == 1
    assert [line.split(":")[0] for line in lines] == ["no credentials", "no report scope"]


def test_check_probes_every_configured_scope(run_check) -> None:
    code, lines = run_check(SERVICE_ORG="acme,globex", SERVICE_ENTERPRISE="acme-corp,initech")
    assert code == 0 and len(lines) == 1
    for scope in ("organization 'acme'", "organization 'globex'", "enterprise 'acme-corp'", "enterprise 'initech'"):
        assert f"{scope} 28-day report readable" in lines[0]


def test_check_names_a_mistyped_enterprise_beside_a_good_org(run_check) -> None:
    code, lines = run_check(SERVICE_ENTERPRISE="nope")
    assert code == 1
    assert lines == [line for line in lines if line.startswith("unknown enterprise 'nope' in SERVICE_ENTERPRISE:")]
    assert len(lines) == 1


def test_check_names_the_setting_when_nothing_listens_at_the_base_url(run_check) -> None:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    code, lines = run_check(SERVICE_BASE_URL=f"http://127.0.0.1:{port}")
    assert code == 1 and len(lines) == 1
    assert lines[0].endswith(f"nothing listens at 127.0.0.1:{port}: check SERVICE_BASE_URL")


def test_check_names_the_dialect_of_the_server(run_check, emu) -> None:
    code, lines = run_check(SERVICE_DIALECT="github")
    assert code == 1 and len(lines) == 1 and lines[0].endswith("set SERVICE_DIALECT=service")


def test_check_says_a_base_url_needs_its_scheme(run_check, emu) -> None:
    code, lines = run_check(SERVICE_BASE_URL=emu.base_url.removeprefix("http://"))
    assert code == 1
    assert lines == ["configuration: SERVICE_BASE_URL must start with http:// or https://"]
