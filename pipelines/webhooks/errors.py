"""One exception tree for the webhook receiver, spool and loader. Messages never carry secrets."""


class WebhookError(Exception):
    """Base of every webhook failure."""


class WebhookConfigError(WebhookError):
    """The receiver cannot start: a setting is missing or wrong (named, never its value)."""


class SpoolWriteError(WebhookError):
    """A delivery could not be made durable; the sender must be told to retry."""


class SpoolCorrupt(WebhookError):
    """A complete record inside a segment fails its checksum: not a torn tail, real damage."""

    def __init__(self, *, segment: str, offset: int, reason: str) -> None:
        super().__init__(f"spool segment {segment} at byte {offset}: {reason}")
        self.segment = segment
        self.offset = offset
