"""`metrics-etl check` says per scope which billing data the token can read, and for what it
cannot, one line naming the data, the service's answer and the roles it needs; a run lands the
rest, so these lines never fail the check."""

from __future__ import annotations

import os

import pytest

from emulator import EmulatorConfig, running_emulator
from pipelines.cli import main

from .conftest import CHECK_SETTINGS, TODAY, env_for, service_lines


@pytest.fixture
def check(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    for name in list(os.environ):
        if name.startswith(CHECK_SETTINGS):
            monkeypatch.delenv(name)

    def run(emu, **extra: str) -> tuple[int, list[str]]:
        for name, value in env_for(emu, tmp_path, SERVICE_ENTERPRISE=emu.credentials["enterprise"], **extra).items():
            monkeypatch.setenv(name, value)
        code = main(["check"])
        return code, service_lines(capsys.readouterr().out)

    return run


def test_the_ok_line_names_the_billing_data_each_scope_can_read(check, emu):
    code, lines = check(emu)
    assert code == 0 and len(lines) == 1, lines
    assert (
        "billing readable: organization 'acme' usage and seat breakdown, "
        "enterprise 'acme-corp' usage and cost centers and budgets and exports" in lines[0]
    )


def test_a_token_without_billing_read_gets_one_line_a_scope_naming_the_roles(check):
    config = EmulatorConfig(seed=3, users=8, today=TODAY, billing_read=False)
    with running_emulator(config) as emu:
        code, lines = check(emu)
    assert code == 0, lines
    assert lines[0].startswith("OK:") and "billing readable" not in lines[0]
    org, enterprise = lines[1:]
    assert org.startswith("billing of organization 'acme': usage and seat breakdown not readable (403 ")
    assert "the token needs" in org and "organization" in org
    assert enterprise.startswith(
        "billing of enterprise 'acme-corp': usage and cost centers and budgets and exports not readable (403 "
    )
    assert "billing manager" in enterprise and enterprise.endswith("the cost views stay without it")


def test_billing_months_zero_asks_nothing_of_billing(check, emu):
    code, lines = check(emu, BILLING_MONTHS="0")
    assert code == 0 and len(lines) == 1 and "billing" not in lines[0]
