"""How fast the gateway reads what a bot did not have to send (docs/protocol.md, "Flooding").

Actions that answer a waiting decision are always read at once. Everything else — Hellos,
answers nobody waits for, malformed messages — is "unsolicited": a connection may send a burst
of `UNSOLICITED_BURST` of them, then `UNSOLICITED_PER_S` per second. Beyond that the gateway
stops reading the connection until the rate allows; HTTP/2 flow control then stops the sender,
so a flood costs the gateway (and the other bots) almost nothing.

Refused connections are logged the same way (`RateLimitedLog`): the first `REFUSALS_BURST`,
then one a second, each saying how many like it were left out since the last.
"""

from __future__ import annotations

import logging
import time

UNSOLICITED_BURST = 100
UNSOLICITED_PER_S = 50
MAX_HELLO_LOGS = 3  # Hellos logged one by one per connection; the rest are counted at its end
REFUSALS_BURST = 20


class Throttle:
    """A token bucket: `take()` says how long to wait before the next unsolicited message."""

    def __init__(self, burst: int = UNSOLICITED_BURST, per_s: float = UNSOLICITED_PER_S) -> None:
        self.burst = burst
        self.per_s = per_s
        self.tokens = float(burst)
        self.updated = time.monotonic()
        self.waited = 0  # messages that had to wait: the connection was flooding

    def take(self) -> float:
        """Use one token; the seconds to sleep first when there was none (0.0 when there was)."""
        self._refill()
        self.tokens -= 1
        if self.tokens >= 0:
            return 0.0
        self.waited += 1
        return -self.tokens / self.per_s

    def allow(self) -> bool:
        """Use one token if there is one (True); else False, and nothing is used."""
        self._refill()
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True

    def _refill(self) -> None:
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.updated) * self.per_s)
        self.updated = now


class RateLimitedLog:
    """Info lines at a bounded rate; the lines left out are counted in the next one written."""

    def __init__(self, logger: logging.Logger, burst: int = REFUSALS_BURST, per_s: float = 1.0) -> None:
        self.logger = logger
        self.throttle = Throttle(burst, per_s)
        self.left_out = 0

    def info(self, message: str, *args: object) -> None:
        if not self.throttle.allow():
            self.left_out += 1
            return
        if self.left_out:
            message, args = message + " (and %d more like it left out of the log)", (*args, self.left_out)
            self.left_out = 0
        self.logger.info(message, *args)
