"""The snapshot's GraphQL batch size, adapting to what the service can answer."""

from __future__ import annotations


class AdaptiveBatch:
    """GraphQL batch size: halves on a choke, grows back after `grow_after` successes in a row.

    Growth doubles while nothing has choked; after a choke it closes in on the size that choked
    (halfway each time) without reaching it, so a fixed server limit costs a few failures, not
    one every few calls. The choking size is forgotten after `_FORGET_AFTER` successes in a row,
    so a passing overload does not cap the batch for the rest of the run.
    """

    _FORGET_AFTER = 50

    def __init__(self, *, maximum: int, grow_after: int) -> None:
        if maximum < 1 or grow_after < 1:
            raise ValueError("maximum and grow_after must be at least 1")
        self.maximum = maximum
        self.size = maximum
        self._grow_after = grow_after
        self._streak = 0
        self._since_choke = 0
        self._choked_at: int | None = None

    def succeeded(self) -> None:
        self._streak += 1
        self._since_choke += 1
        if self._choked_at is not None and self._since_choke >= self._FORGET_AFTER:
            self._choked_at = None
        if self._streak < self._grow_after:
            return
        self._streak = 0
        target = self.size * 2 if self._choked_at is None else (self.size + self._choked_at) // 2
        self.size = min(self.maximum, max(self.size, target))

    def choked(self) -> bool:
        """Halve; False when already at one repository per call (nothing left to try)."""
        self._streak = 0
        self._since_choke = 0
        self._choked_at = self.size
        if self.size == 1:
            return False
        self.size = max(1, self.size // 2)
        return True
