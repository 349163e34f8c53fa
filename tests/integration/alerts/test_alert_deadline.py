"""One deadline for each alert's whole exchange, against real slow peers on loopback: a webhook
that drips its answer a byte at a time, one that takes the request and never answers, a closed
port, an SMTP server dripping its greeting and one that never answers the message. What was
sent whole is said to be sent, not "not delivered"; what did not go out is kept in the outbox
(no secret in it) and arrives with the next delivery, the next command or the next sensor tick.
"""

from __future__ import annotations

import io
import json
import logging
import threading
import time
from datetime import date, timedelta
from pathlib import Path

import dagster as dg
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipelines.alerts import (
    OUTBOX_NAME,
    AlertConfig,
    Outbox,
    WebhookTarget,
    deliver,
    parse_targets,
    retry_kept,
    run_failed,
)
from pipelines.cli import main
from pipelines.config import Settings
from pipelines.definitions import build_definitions
from pipelines.runs import RunFailed, RunPlan, run_plan
from pipelines.service import Secret
from tests._alerts import HOOK_KEY, SMTP_PASSWORD, endless_refusal, slow_peer, smtp_server, webhook_server
from tests.e2e.chaos import free_port
from tests.integration.dagster.test_materialize import _serve_report_file, _user_record

DEADLINE = 2.0
# What one exchange may take past its deadline: the SMTP worker's 2 s to unwind, and a loaded
# machine's scheduling. A bound the issue asks for ("the run ends on time"), not a measurement.
SLACK = 5.0


def _alert(cause: str = "boom"):
    return run_failed(job="usage_daily_job", days="2026-11-20", cause=cause, log="full log: x", scopes=(), link=None)


def _config(*urls: str, timeout: float = DEADLINE) -> AlertConfig:
    return AlertConfig(targets=parse_targets(",".join(urls)), timeout=timeout)


def _timed(function, *args, **kwargs):
    started = time.monotonic()
    result = function(*args, **kwargs)
    return result, time.monotonic() - started


@pytest.mark.parametrize("kind", ["drip", "silent"])
def test_a_webhook_that_takes_the_alert_and_answers_slowly_costs_one_deadline_and_is_reported_sent(kind, tmp_path):
    outbox = Outbox(tmp_path / "outbox.json")
    with slow_peer(kind, interval=0.5) as peer:  # the drip's 80-byte answer would take 40 s
        (delivery,), seconds = _timed(deliver, _config(peer.url), _alert(), outbox=outbox)
        (body,) = peer.received
    assert seconds < DEADLINE + SLACK
    assert (delivery.arrived, delivery.sent, delivery.kept) == (False, True, False)
    assert delivery.problem == f"sent; no answer within {DEADLINE:g} s"
    assert delivery.line() == (
        f"webhook 127.0.0.1: sent; no answer within {DEADLINE:g} s (it may have arrived; not sent again)"
    )
    assert b"metrics-etl: usage_daily_job failed for 2026-11-20" in body  # it did arrive, whole
    assert not outbox.path.exists()  # not sent again: it would arrive twice


def test_a_webhook_greeting_a_byte_at_a_time_never_holds_the_sender_past_its_deadline(tmp_path):
    # The answer's head itself drips: each byte would renew a per-read timeout for ever.
    with slow_peer("drip", interval=DEADLINE / 4) as peer:
        (delivery,), seconds = _timed(deliver, _config(peer.url), _alert())
    assert seconds < DEADLINE + SLACK and delivery.sent and not delivery.arrived


def test_a_closed_port_keeps_the_alert_without_its_key_and_the_next_delivery_sends_it_first(tmp_path, caplog):
    port = free_port()
    url = f"http://127.0.0.1:{port}/services/{HOOK_KEY}"
    config = _config(url)
    outbox = Outbox(tmp_path / "outbox.json")
    with caplog.at_level(logging.WARNING, logger="pipelines.alerts"):
        (delivery,) = deliver(config, _alert("first"), outbox=outbox)
    assert (delivery.sent, delivery.kept) == (False, True) and delivery.problem.startswith("ConnectError")
    (line,) = [record.getMessage() for record in caplog.records]
    assert line.startswith("alert not delivered to webhook 127.0.0.1: ConnectError")
    assert "kept and tried again by the next run or sensor tick" in line and "\n" not in line
    kept = outbox.path.read_text()
    assert "cause: first" in kept
    for secret in (HOOK_KEY, url, str(port)):
        assert secret not in kept
    assert outbox.path.stat().st_mode & 0o777 == 0o600

    with webhook_server(port) as hook:  # the next command: an outbox of its own on the same file
        (delivery,) = deliver(config, _alert("second"), outbox=Outbox(outbox.path))
    assert delivery.arrived
    assert [text.split("\n")[2] for text in hook.texts] == ["cause: first", "cause: second"]  # in order, once each
    assert not outbox.path.exists()


def test_a_kept_alert_goes_only_to_the_targets_it_missed_and_a_slow_target_costs_one_deadline_per_retry(tmp_path):
    dead = f"http://127.0.0.1:{free_port()}/services/dead-key-0123456789"
    outbox = Outbox(tmp_path / "outbox.json")
    with webhook_server() as hook:
        for n in range(5):  # five commands
            deliver(_config(hook.url, dead), _alert(f"cause {n}"), outbox=Outbox(outbox.path))
        assert len(hook.texts) == 5  # each arrived once at the live target
        # Each kept for the dead target alone (one key, the same for all).
        assert len({tuple(item["targets"]) for item in json.loads(outbox.path.read_text())["alerts"]}) == 1
        # The second webhook of that host (its key rotated) now takes requests and never answers:
        # the first kept alert costs one deadline, the other four wait for the next retry.
        with slow_peer("silent") as silent:
            _, seconds = _timed(retry_kept, _config(hook.url, silent.url), outbox)
            assert silent.connections == 1
        assert len(hook.texts) == 5  # nothing sent twice to the live target
    assert seconds < DEADLINE + SLACK
    assert [item["lines"][1] for item in json.loads(outbox.path.read_text())["alerts"]] == [
        f"cause: cause {n}" for n in range(1, 5)
    ]


def test_an_smtp_server_dripping_its_greeting_costs_one_deadline_and_the_alert_is_kept(tmp_path):
    outbox = Outbox(tmp_path / "outbox.json")
    with slow_peer("smtp-drip", interval=0.5) as peer:
        config = _config(f"smtp://127.0.0.1:{peer.port}?to=ops@example.org")
        (delivery,), seconds = _timed(deliver, config, _alert(), outbox=outbox)
    assert seconds < DEADLINE + SLACK
    assert (delivery.sent, delivery.kept) == (False, True)
    assert delivery.problem == f"no exchange completed within {DEADLINE:g} s"
    assert "ops@example.org" not in outbox.path.read_text()  # the target is a hashed key


def test_an_smtp_server_that_takes_the_message_and_never_answers_is_reported_sent(tmp_path):
    outbox = Outbox(tmp_path / "outbox.json")
    with smtp_server(answer_data_after=60) as mailbox:
        (delivery,), seconds = _timed(deliver, _config(mailbox.url), _alert(), outbox=outbox)
        assert len(mailbox.messages) == 1
    assert seconds < DEADLINE + SLACK
    assert (delivery.sent, delivery.kept) == (True, False) and not outbox.path.exists()
    assert SMTP_PASSWORD not in delivery.line()


def test_a_refusal_that_will_not_change_is_not_kept_and_a_server_error_is(tmp_path):
    outbox = Outbox(tmp_path / "outbox.json")
    with webhook_server() as hook:
        wrong_key = hook.url.replace(HOOK_KEY, "wrong-key-0123456789")
        (delivery,) = deliver(_config(wrong_key), _alert(), outbox=outbox)
    assert delivery.problem.startswith("HTTP 404") and not delivery.kept and not outbox.path.exists()


def test_alerts_test_says_sent_not_answered_for_a_slow_endpoint_and_exits_1(monkeypatch, capsys, tmp_path):
    monkeypatch.setenv("METRICS_HOME", str(tmp_path))
    with slow_peer("silent") as peer:
        monkeypatch.setenv("METRICS_ALERTS", peer.url)
        code, seconds = _timed(main, ["alerts", "test"])
    out, err = capsys.readouterr()
    timeout = AlertConfig().timeout
    assert code == 1 and seconds < timeout + SLACK
    assert out == f"webhook 127.0.0.1: sent; no answer within {timeout:g} s (it may have arrived; not sent again)\n"
    assert err == "" and HOOK_KEY not in out


def test_a_kept_alert_is_never_lost_to_a_torn_write(tmp_path):
    """The file is replaced whole: a temporary file left by a crash is not the outbox."""
    outbox = Outbox(tmp_path / "outbox.json")
    dead = f"http://127.0.0.1:{free_port()}/services/{HOOK_KEY}"
    deliver(_config(dead), _alert("kept"), outbox=outbox)
    (tmp_path / ".outbox.json.999.tmp").write_text('{"version": 1, "alerts": [')  # a crash mid-write
    with webhook_server(int(dead.split(":")[2].split("/")[0])) as hook:
        retry_kept(_config(dead), Outbox(outbox.path))
    assert [text.split("\n")[2] for text in hook.texts] == ["cause: kept"]


def test_an_unreadable_outbox_is_set_aside_in_one_line_and_delivery_goes_on(tmp_path, caplog):
    outbox = Outbox(tmp_path / "outbox.json")
    outbox.path.write_text("not json")
    config = AlertConfig(targets=(WebhookTarget(Secret(f"http://127.0.0.1:{free_port()}/x-0123456789")),), timeout=1)
    with caplog.at_level(logging.WARNING, logger="pipelines.alerts"):
        retry_kept(config, outbox)
    (line,) = [r.getMessage() for r in caplog.records]
    assert line.startswith(f"{outbox.path} was unreadable (JSONDecodeError): moved to {outbox.path}.unreadable-")
    assert not outbox.path.exists() and len(list(Path(tmp_path).glob("outbox.json.unreadable-*"))) == 1


def test_a_failed_run_alerting_a_silent_endpoint_spends_one_deadline_and_a_sensor_tick_sends_what_was_kept(
    tmp_path, monkeypatch, caplog
):
    day = date.today() - timedelta(days=6)
    emu = _serve_report_file(tmp_path, monkeypatch, day=day, lines=[_user_record(day, 7, 3), "{not json"])
    monkeypatch.setenv("METRICS_HOME", str(tmp_path / "home"))
    try:
        with slow_peer("silent") as silent:
            monkeypatch.setenv("METRICS_ALERTS", silent.url)
            settings = Settings.from_env()
            plan = RunPlan(first_day=day, last_day=day, latest_28_day=False, snapshots=False)
            with pytest.raises(RunFailed), caplog.at_level(logging.WARNING, logger="pipelines.alerts"):
                run_plan(plan, settings=settings, start_day=day - timedelta(days=3), out=io.StringIO())
            # The failed run's alert went out whole and was never answered: one deadline spent.
            # The command's warnings that followed waited in the outbox instead of costing more.
            assert silent.connections == 1
        (told,) = silent.received
        assert b"usage_daily_job for " + day.isoformat().encode() + b" not published" in told
        timeout = settings.alerts.timeout
        outbox = settings.dagster_home / OUTBOX_NAME
        kept = [item["title"] for item in json.loads(outbox.read_text())["alerts"]]
        assert kept and not any("usage_daily_job" in title for title in kept)
        # One line for each alert: the one sent, and each one kept.
        lines = [record.getMessage() for record in caplog.records]
        assert lines == [
            f"alert to webhook 127.0.0.1: sent; no answer within {timeout:g} s: it may have arrived, not sent again",
            *[
                "alert not delivered to webhook 127.0.0.1: not tried: it did not take an earlier alert just now, kept "
                "and tried again by the next run or sensor tick; check METRICS_ALERTS (metrics-etl alerts test)"
            ]
            * len(kept),
        ]
        assert HOOK_KEY not in outbox.read_text()

        # The daemon's next warning tick sends them, once, in order, and empties the outbox.
        with webhook_server() as hook:
            monkeypatch.setenv("METRICS_ALERTS", hook.url)
            settings = Settings.from_env()
            defs = build_definitions(settings, start_day=day - timedelta(days=3))
            with dg.DagsterInstance.from_config(str(settings.dagster_home)) as instance:
                sensor = defs.resolve_sensor_def("warning_alert_sensor")
                sensor(dg.build_sensor_context(instance=instance, repository_def=defs.get_repository_def()))
                sensor(dg.build_sensor_context(instance=instance, repository_def=defs.get_repository_def()))
        assert [text.split("\n", 1)[0] for text in hook.texts] == kept
        assert not outbox.exists()
    finally:
        emu.__exit__(None, None, None)


def test_an_endless_refusal_body_is_read_only_as_far_as_its_reason_and_the_alert_is_kept(tmp_path):
    outbox = Outbox(tmp_path / "outbox.json")
    with endless_refusal() as peer:
        (delivery,) = deliver(_config(peer.url), _alert(), outbox=outbox)
    # Read whole, 10 GB would have run into the deadline; the refusal is named at once instead.
    assert delivery.problem == "HTTP 500 " + "x" * 120
    assert delivery.kept and len(json.loads(outbox.path.read_text())["alerts"]) == 1


def test_alerts_kept_by_many_at_once_are_all_kept(tmp_path):
    """A run and the daemon's sensor keep alerts at the same moment: none overwrites another's."""
    path = tmp_path / "outbox.json"
    threads = [threading.Thread(target=Outbox(path).keep, args=(_alert(f"cause {n}"), ["k"])) for n in range(20)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    kept = json.loads(path.read_text())["alerts"]
    assert sorted(item["lines"][1] for item in kept) == sorted(f"cause: cause {n}" for n in range(20))


def test_an_outbox_that_cannot_be_written_is_said_in_the_line_never_promised(tmp_path, caplog):
    (tmp_path / "file").write_text("")
    outbox = Outbox(tmp_path / "file" / "outbox.json")  # under a file: no directory can be made
    dead = f"http://127.0.0.1:{free_port()}/services/{HOOK_KEY}"
    with caplog.at_level(logging.WARNING, logger="pipelines.alerts"):
        (delivery,) = deliver(_config(dead), _alert(), outbox=outbox)
    assert f"not kept for a retry: {outbox.path} could not be written (" in delivery.problem
    assert not delivery.kept
    line = caplog.records[-1].getMessage()
    assert "not kept for a retry" in line and "tried again" not in line


def test_a_run_and_the_daemon_sending_kept_alerts_at_once_send_each_once(tmp_path):
    path = tmp_path / "outbox.json"
    port = free_port()
    config = _config(f"http://127.0.0.1:{port}/services/{HOOK_KEY}")
    for n in range(10):
        deliver(config, _alert(f"cause {n}"), outbox=Outbox(path))  # the channel down: each kept
    with webhook_server(port) as hook:
        senders = [threading.Thread(target=retry_kept, args=(config, Outbox(path))) for _ in range(4)]
        for sender in senders:
            sender.start()
        for sender in senders:
            sender.join(timeout=60)
    assert [text.split("\n")[2] for text in hook.texts] == [f"cause: cause {n}" for n in range(10)]
    assert not path.exists()


@settings(max_examples=40, deadline=None)
@given(
    steps=st.lists(
        st.tuples(st.sampled_from(["keep", "flush"]), st.sets(st.sampled_from(["a", "b", "c"]), min_size=1)),
        max_size=12,
    )
)
def test_the_outbox_keeps_exactly_what_has_not_reached_each_target_in_order(steps, tmp_path_factory):
    """Whatever the order of alerts kept and of sends reaching some targets: each alert is sent
    to a target at most once, in the order kept, and the file holds exactly the rest."""
    path = tmp_path_factory.mktemp("outbox") / "outbox.json"
    model: list[tuple[str, set[str]]] = []  # (cause, targets not reached), oldest first
    sent: list[tuple[str, str]] = []
    for number, (step, targets) in enumerate(steps):
        if step == "keep":
            assert Outbox(path).keep(_alert(f"n{number}"), sorted(targets)) is None
            model.append((f"cause: n{number}", set(targets)))
            continue
        with Outbox(path).flushing() as kept:  # these targets are up now
            assert kept is not None
            for pending in kept.alerts:
                for key in pending.targets:
                    if key in targets:
                        sent.append((pending.alert.lines[1], key))
                        kept.settle(pending, key)
        for _, missing in model:
            missing -= targets
        model = [(cause, missing) for cause, missing in model if missing]
        on_disk = json.loads(path.read_text())["alerts"] if path.exists() else []
        assert [(item["lines"][1], set(item["targets"])) for item in on_disk] == model
    assert len(sent) == len(set(sent))  # never twice to one target
    for target in "abc":
        causes = [cause for cause, key in sent if key == target]
        assert causes == sorted(causes, key=lambda cause: int(cause.removeprefix("cause: n")))


def test_an_alert_kept_for_a_target_no_longer_configured_is_dropped_in_one_line(tmp_path, caplog):
    outbox = Outbox(tmp_path / "outbox.json")
    deliver(_config(f"http://127.0.0.1:{free_port()}/services/{HOOK_KEY}"), _alert(), outbox=outbox)
    assert outbox.path.exists()
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="pipelines.alerts"):
        retry_kept(_config("smtp://127.0.0.1:25?to=ops@example.org"), Outbox(outbox.path))
    assert [r.getMessage() for r in caplog.records] == [
        "1 kept alert(s) dropped: their target is no longer in METRICS_ALERTS"
    ]
    assert not outbox.path.exists()
