"""`metrics-etl alerts test` and METRICS_ALERTS: one message to each target over loopback, one
line each, and the targets' secrets nowhere but on the wire."""

from __future__ import annotations

import logging

import pytest

from pipelines.alerts import AlertConfig, WebhookTarget, deliver, run_failed
from pipelines.cli import main
from pipelines.config import Settings
from pipelines.service import ConfigError, Secret
from tests._alerts import HOOK_KEY, SMTP_PASSWORD, smtp_server, webhook_server
from tests.e2e.chaos import free_port


@pytest.fixture
def channels():
    with webhook_server() as hook, smtp_server() as mailbox:
        yield hook, mailbox


def test_alerts_test_sends_one_message_to_each_target_and_says_it_arrived(channels, monkeypatch, capsys, tmp_path):
    hook, mailbox = channels
    monkeypatch.setenv("METRICS_HOME", str(tmp_path))
    monkeypatch.setenv("METRICS_ALERTS", f"{hook.url},{mailbox.url}")
    monkeypatch.setenv("SERVICE_ORG", "acme")
    monkeypatch.setenv("DAGSTER_WEBSERVER_URL", "https://dagster.example.org")

    assert main(["alerts", "test"]) == 0

    out, err = capsys.readouterr()
    lines = out.splitlines()
    assert lines == ["webhook 127.0.0.1: arrived", f"e-mail to ops@example.org via 127.0.0.1:{mailbox.port}: arrived"]
    assert len(hook.texts) == 1 and len(mailbox.messages) == 1 and mailbox.logins == ["alerts"]
    for text in (hook.texts[0], mailbox.texts()[0]):
        assert "metrics-etl: test alert" in text and "organization acme" in text
        assert "https://dagster.example.org" in text
    for text in (out, err, *hook.texts, *mailbox.texts()):
        assert HOOK_KEY not in text and SMTP_PASSWORD not in text


def test_a_target_that_does_not_answer_is_one_line_and_exit_1(channels, monkeypatch, capsys, tmp_path):
    hook, _ = channels
    dead = f"http://127.0.0.1:{free_port()}/services/dead-key-0123456789"
    monkeypatch.setenv("METRICS_HOME", str(tmp_path))
    monkeypatch.setenv("METRICS_ALERTS", f"{dead},{hook.url}")

    assert main(["alerts", "test"]) == 1

    out, err = capsys.readouterr()
    first, second = out.splitlines()
    assert first.startswith("webhook 127.0.0.1: not delivered: ConnectError") and "check METRICS_ALERTS" in first
    assert second == "webhook 127.0.0.1: arrived"
    assert "dead-key" not in out + err and err == ""


def test_no_target_says_what_to_set(monkeypatch, capsys, tmp_path):
    monkeypatch.setenv("METRICS_HOME", str(tmp_path))
    monkeypatch.delenv("METRICS_ALERTS", raising=False)
    assert main(["alerts", "test"]) == 1
    assert capsys.readouterr().err == (
        "metrics-etl alerts test: METRICS_ALERTS names no target: set it to an incoming-webhook URL or smtp://… "
        "e-mail (docs/operations.md, Alerts)\n"
    )


def test_a_bad_target_is_one_line_naming_its_place_never_its_text(tmp_path):
    with pytest.raises(ConfigError) as caught:
        Settings.from_env(environ={"METRICS_ALERTS": "https://hooks.example.org/k-0123456789,ftp://u:pw-0123456789@h"})
    assert str(caught.value).startswith("METRICS_ALERTS target 2 is neither")
    assert "pw-0123456789" not in str(caught.value) and "\n" not in str(caught.value)


def test_settings_and_their_repr_hide_every_key_of_the_targets():
    settings = Settings.from_env(
        environ={
            "METRICS_ALERTS": f"https://hooks.slack.com/services/{HOOK_KEY},"
            f"smtps://alerts:{SMTP_PASSWORD}@mail.example.org?to=ops@example.org",
        }
    )
    text = repr(settings)
    assert HOOK_KEY not in text and SMTP_PASSWORD not in text
    assert [t.label for t in settings.alerts.targets] == [
        "webhook hooks.slack.com",
        "e-mail to ops@example.org via mail.example.org:465",
    ]


def test_a_failed_delivery_is_one_warning_line_and_never_raises(caplog):
    config = AlertConfig(targets=(WebhookTarget(Secret(f"http://127.0.0.1:{free_port()}/{HOOK_KEY}")),), timeout=2)
    alert = run_failed(job="usage_daily_job", days="2026-03-01", cause="boom", log="full log: x", scopes=(), link=None)
    with caplog.at_level(logging.WARNING, logger="pipelines.alerts"):
        (delivery,) = deliver(config, alert)
    assert not delivery.arrived
    (record,) = caplog.records
    assert record.getMessage().startswith("alert not delivered to webhook 127.0.0.1: ConnectError")
    assert "\n" not in record.getMessage() and HOOK_KEY not in record.getMessage()
