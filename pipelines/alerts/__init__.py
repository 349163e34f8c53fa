"""Alerts to a team's channel: a Slack or Teams incoming webhook (any URL taking Slack's JSON), or
e-mail by SMTP.

The library takes its own frozen :class:`AlertConfig` (pipelines.config parses METRICS_ALERTS
into it) and never reads the environment. Messages are built from names, days and one-line
causes (`run_failed`, `publish_held`, `check_changed`, `stale`); `deliver` sends one to every
target under one deadline per exchange and never raises; what did not arrive is kept in an
`Outbox` and sent again by `retry_kept` (or the next `deliver`).
"""

from pipelines.alerts._config import AlertConfig, EmailTarget, Target, WebhookTarget, parse_targets
from pipelines.alerts._deliver import Delivery, deliver, retry_kept
from pipelines.alerts._message import Alert, check_changed, publish_held, run_failed, stale, test_alert
from pipelines.alerts._outbox import OUTBOX_NAME, Outbox

__all__ = [
    "OUTBOX_NAME",
    "Alert",
    "AlertConfig",
    "Delivery",
    "EmailTarget",
    "Outbox",
    "Target",
    "WebhookTarget",
    "check_changed",
    "deliver",
    "parse_targets",
    "publish_held",
    "retry_kept",
    "run_failed",
    "stale",
    "test_alert",
]
