"""How fast the gateway reads what a bot did not have to send (docs/protocol.md, "Flooding").

Actions that answer a waiting decision are always read at once. Everything else — Hellos,
answers nobody waits for, malformed messages — is "unsolicited": a connection may send a burst
of `UNSOLICITED_BURST` of them, then `UNSOLICITED_PER_S` per second. Beyond that the gateway
stops reading the connection until the rate allows; HTTP/2 flow control then stops the sender,
so a flood costs the gateway (and the other bots) almost nothing.
"""

from __future__ import annotations

import time

UNSOLICITED_BURST = 100
UNSOLICITED_PER_S = 50
MAX_HELLO_LOGS = 3  # Hellos logged one by one per connection; the rest are counted at its end


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
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.updated) * self.per_s)
        self.updated = now
        self.tokens -= 1
        if self.tokens >= 0:
            return 0.0
        self.waited += 1
        return -self.tokens / self.per_s
