"""What a vendor's answer means when it is not the data: each error one line naming the vendor,
the cause and what to do (the library's messages name the setting holding the key, as its
configuration says it, never the key)."""

from __future__ import annotations

__all__ = [
    "Denied",
    "Malformed",
    "RateLimited",
    "RequestFailed",
    "ServerError",
    "TransportFailed",
    "Unreachable",
    "VendorError",
]


class VendorError(Exception):
    """A vendor could not be read; `str()` is the one line a person reads."""

    def __init__(self, vendor: str, message: str) -> None:
        super().__init__(f"{vendor}: {message}")
        self.vendor = vendor
        self.message = message


class RequestFailed(VendorError):
    """An answer with an error status: `status` and the vendor's own message (`said`)."""

    def __init__(self, vendor: str, message: str, *, status: int, said: str) -> None:
        super().__init__(vendor, message)
        self.status = status
        self.said = said


class Denied(RequestFailed):
    """401 or 403: the key is wrong, revoked or lacks the rights; asking again changes nothing."""


class RateLimited(RequestFailed):
    """429: `retry_after` seconds to wait, when the vendor says (its `retry-after` header)."""

    def __init__(self, vendor: str, message: str, *, status: int, said: str, retry_after: float | None) -> None:
        super().__init__(vendor, message, status=status, said=said)
        self.retry_after = retry_after


class ServerError(RequestFailed):
    """5xx (Anthropic's 529 overloaded too): the vendor's trouble, tried again after a while."""


class TransportFailed(VendorError):
    """No answer: the connection failed or timed out."""


class Unreachable(TransportFailed):
    """The host never answered a connection (a wrong address, not an outage): not tried again."""


class Malformed(VendorError):
    """A 200 whose body is not the JSON the vendor documents."""
