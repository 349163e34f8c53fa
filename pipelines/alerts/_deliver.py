"""Sending an alert to every target: an incoming webhook by one HTTP POST, e-mail by SMTP.

Each exchange (connect, send, answer) has one deadline, `AlertConfig.timeout`, enforced around
the whole of it: a channel that answers a byte at a time, or never, costs a run that long and no
more. A delivery that fails is one warning line naming the target and the cause, and is returned
as such; it never raises, so an unreachable channel can never fail the run it reports on. What
may arrive later (the channel unreachable, busy or failing) is kept in the outbox, when one is
given, and tried again before the next alert and at each sensor tick; what was sent whole but
not answered in time is not sent again (it may have arrived).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from pipelines.alerts._config import AlertConfig, Target, WebhookTarget
from pipelines.alerts._exchange import Refused, Unanswered, mail, post
from pipelines.alerts._message import Alert
from pipelines.alerts._outbox import Outbox, target_key
from pipelines.service import redact_secrets

__all__ = ["Delivery", "deliver", "retry_kept"]

_log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Delivery:
    target: str  # the target's label: kind and host, never its key
    problem: str | None = None  # why it did not arrive (or was not answered); None: it arrived
    sent: bool = False  # the message went out whole, and no answer came in time: it may have arrived
    kept: bool = False  # not delivered, kept in the outbox to be tried again

    @property
    def arrived(self) -> bool:
        return self.problem is None

    def line(self) -> str:
        """What happened, for a person: one line, beginning with the target."""
        if self.arrived:
            return f"{self.target}: arrived"
        if self.sent:
            return f"{self.target}: {self.problem} (it may have arrived; not sent again)"
        kept = "; kept, and tried again by the next run or sensor tick" if self.kept else ""
        return f"{self.target}: not delivered: {self.problem}{kept}; check METRICS_ALERTS"

    def log_line(self) -> str:
        """The same, as the warning a run's log and progress show."""
        if self.sent:
            return f"alert to {self.target}: {self.problem}: it may have arrived, not sent again"
        kept = ", kept and tried again by the next run or sensor tick" if self.kept else ""
        return (
            f"alert not delivered to {self.target}: {self.problem}{kept}; check METRICS_ALERTS "
            "(metrics-etl alerts test)"
        )


def deliver(
    config: AlertConfig, alert: Alert, *, outbox: Outbox | None = None, log_failures: bool = True
) -> list[Delivery]:
    """Send `alert` to each target once; what happened at each, in the targets' order.

    With an `outbox`, alerts kept there are tried first (oldest first, so the channel reads them
    in order), and this one is kept for each target it may still reach. A caller that shows each
    delivery itself (`metrics-etl alerts test`) passes log_failures=False.
    """
    if outbox is not None:
        retry_kept(config, outbox)
    deliveries = []
    for index, target in enumerate(config.targets):
        key = target_key(config.targets, index)
        if outbox is not None and key in outbox.passed:
            # It just let an alert's deadline pass: this one waits in the outbox rather than
            # cost the run another, and goes first next time.
            deliveries.append(Delivery(target.label, "not tried: it did not take an earlier alert just now", kept=True))
            continue
        delivery = _attempt(target, alert, config.timeout, keep=outbox is not None)
        if outbox is not None and (delivery.kept or delivery.sent):
            outbox.passed.add(key)
        deliveries.append(delivery)
    missed = [target_key(config.targets, n) for n, d in enumerate(deliveries) if d.kept]
    if outbox is not None and missed:
        problem = outbox.keep(alert, missed)
        if problem is not None:  # not kept after all: say so rather than promise a retry
            deliveries = [Delivery(d.target, f"{d.problem}; {problem}") if d.kept else d for d in deliveries]
    if log_failures:
        for delivery in deliveries:
            if not delivery.arrived:
                _log.warning("%s", delivery.log_line())
    return deliveries


def retry_kept(config: AlertConfig, outbox: Outbox) -> None:
    """Try the alerts kept in the outbox again, each to the targets it has not reached.

    A target that does not take one (down, or past its deadline) is left alone for the rest of
    the outbox's life (`Outbox.passed`: a command, a sensor tick): a dead or slow channel costs
    it one deadline, however many alerts wait. One line says what is still kept.
    """
    gone = 0
    with outbox.flushing() as kept:
        if kept is None:  # another process is sending them now
            return
        for pending in kept.alerts:
            for key in pending.targets:
                target = kept.target(config.targets, key)
                if target is None:  # no longer in METRICS_ALERTS: nowhere to send it
                    kept.settle(pending, key)
                    gone += 1
                    continue
                if key in outbox.passed:
                    continue
                kept.tried = True
                delivery = _attempt(target, pending.alert, config.timeout, keep=True)
                if delivery.kept or delivery.sent:
                    outbox.passed.add(key)  # slow or down: the alerts behind this one wait for the next call
                if not delivery.kept:
                    kept.settle(pending, key)
                    if delivery.arrived:
                        _log.info("alert kept since %s delivered to %s", pending.since, delivery.target)
                    else:
                        _log.warning("kept since %s: %s", pending.since, delivery.log_line())
    if gone:
        _log.warning("%d kept alert(s) dropped: their target is no longer in METRICS_ALERTS", gone)
    for line in outbox.notes():
        _log.warning("%s", line)


def _attempt(target: Target, alert: Alert, timeout: float, *, keep: bool) -> Delivery:
    try:
        if isinstance(target, WebhookTarget):
            post(target, alert, timeout=timeout)
        else:
            mail(target, alert, timeout=timeout)
        return Delivery(target.label)
    except Unanswered as late:
        return Delivery(target.label, str(late), sent=late.sent, kept=keep and not late.sent)
    except Refused as refused:
        return Delivery(target.label, str(refused), kept=keep and refused.later)
    # Whatever goes wrong with a channel (network, TLS, DNS) is the operator's to read, not the run's.
    except Exception as exc:
        problem = redact_secrets(f"{type(exc).__name__}: {' '.join(str(exc).split()) or 'no detail'}")
        return Delivery(target.label, problem, kept=keep)
