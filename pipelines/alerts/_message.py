"""What an alert says: a title line and a few short lines, naming the scope and the day, with a
link to the run in Dagster's UI when its address is known. Built from plain values (names, days,
one-line causes), never from a payload; every text passes the redactor last."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from pipelines.service import redact_secrets, redact_url

__all__ = ["Alert", "check_changed", "publish_held", "run_failed", "stale", "test_alert"]

_DETAIL_CHARS = 240  # a warning's detail names scopes and days; the rest is one query away
_URL = re.compile(r"https?://[^\s\"'<>]+")


def _clean(text: str) -> str:
    return redact_secrets(_URL.sub(lambda m: redact_url(m.group(0)), text))


@dataclass(frozen=True)
class Alert:
    title: str
    lines: tuple[str, ...] = ()
    link: str | None = None

    @property
    def subject(self) -> str:
        return _clean(self.title)

    def text(self) -> str:
        # The link is the Dagster UI's own address, shown whole.
        body = _clean("\n".join((self.title, *self.lines)))
        return f"{body}\n{self.link}" if self.link else body

    def cleaned(self) -> Alert:
        """The alert as it is sent, each line through the redactor: what may be written down."""
        return Alert(_clean(self.title), tuple(_clean(line) for line in self.lines), self.link)


def _scopes(scopes: Sequence[tuple[str, str]]) -> str:
    return ", ".join(f"{kind} {name}" for kind, name in scopes) or "no scope configured"


def run_failed(
    *, job: str, days: str | None, cause: str, log: str, scopes: Sequence[tuple[str, str]], link: str | None
) -> Alert:
    """A run that failed: its job and days, the one-line cause and where the full log is."""
    when = f" for {days}" if days else ""
    return Alert(
        f"metrics-etl: {job} failed{when}",
        (f"scope: {_scopes(scopes)}", f"cause: {cause}", log),
        link,
    )


def publish_held(
    *,
    job: str,
    days: str | None,
    checks: Sequence[str],
    log: str,
    scopes: Sequence[tuple[str, str]],
    link: str | None,
) -> Alert:
    """A blocking check that failed: the serving database and lake keep their last good state."""
    when = f" for {days}" if days else ""
    return Alert(
        f"metrics-etl: {job}{when} not published, a blocking check failed",
        (f"scope: {_scopes(scopes)}", *checks, "BI readers keep the last good data", log),
        link,
    )


def check_changed(
    *, check: str, asset: str, on: bool, detail: str, scopes: Sequence[tuple[str, str]], link: str | None
) -> Alert:
    """A warning check that turned on, or cleared."""
    if on:
        title = f"metrics-etl warning: {check} on {asset} turned on"
        lines = [f"scope: {_scopes(scopes)}"]
        if detail:
            lines.append(f"found: {detail[:_DETAIL_CHARS]}{'…' if len(detail) > _DETAIL_CHARS else ''}")
    else:
        title, lines = f"metrics-etl: {check} on {asset} cleared", [f"scope: {_scopes(scopes)}"]
    return Alert(title, tuple(lines), link)


def stale(*, asset: str, day: str | None, on: bool, scopes: Sequence[tuple[str, str]], link: str | None) -> Alert:
    """Data past its freshness deadline (Dagster's freshness check), or fresh again."""
    if on:
        missing = f"day {day}" if day else "its newest day"
        title = f"metrics-etl: stale data: {asset}, {missing} has not landed by its deadline"
    else:
        title = f"metrics-etl: {asset} fresh again" + (f", day {day} landed" if day else "")
    return Alert(title, (f"scope: {_scopes(scopes)}",), link)


def test_alert(*, scopes: Sequence[tuple[str, str]], link: str | None) -> Alert:
    return Alert("metrics-etl: test alert", (f"scope: {_scopes(scopes)}", "sent by `metrics-etl alerts test`"), link)
