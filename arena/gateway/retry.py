"""When the gateway launches a bot again after a launch that did not connect: a backoff.

A launched bot that exits before it connects, or is not connected within the match's connect
timeout, forfeits that match (`crash`). Without a memory of that, every later match of the bot
would launch it again and wait the whole connect timeout once more. So the gateway, the one
process that sees every launch (all matches of a run reach the same gateway, whichever Ray worker
plays them), remembers the failed launch: until `retry_at`, a match that needs the bot while it
is not connected forfeits at once with the same reason; the first match after `retry_at` launches
it again. The wait doubles with each launch in a row that fails (`first_s`, 2 x, 4 x, ... up to
`max_s`); a launch that connects clears the record. One slow start therefore keeps a healthy bot
out for `first_s` only, and a bot that never connects costs one connect timeout per retry.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from arena.gateway.sessions import BotFault

# in the reason of a match whose launch was skipped (the authors' service tells its log apart by it)
LAUNCH_SKIPPED = "is not launched again"


@dataclass(frozen=True)
class RetryPolicy:
    """How long after a failed launch the gateway launches the bot again."""

    first_s: float = 30.0
    max_s: float = 600.0

    def delay_s(self, failures: int) -> float:
        """The wait after `failures` launches in a row that did not connect (1, 2, ...)."""
        return min(self.first_s * 2.0 ** (failures - 1), self.max_s)


@dataclass
class FailedLaunch:
    """The last launch of a bot that did not connect, and when to try again."""

    command: str  # a bot registered again with another command is launched at once
    launch: object  # the LaunchedBot: matches that waited on the same launch count it once
    fault: BotFault
    failures: int  # launches in a row that did not connect
    retry_at: float  # on `LaunchRetry.clock`


class LaunchRetry:
    """Failed launches per bot name, for one gateway (used on its event loop only)."""

    def __init__(self, policy: RetryPolicy | None = None, clock: Callable[[], float] = time.monotonic) -> None:
        self.policy = policy or RetryPolicy()
        self.clock = clock
        self.failed_launches: dict[str, FailedLaunch] = {}

    def holding(self, name: str, command: str) -> BotFault | None:
        """The fault for a match that needs `name` before its retry time, else None (launch it)."""
        failed = self.failed_launches.get(name)
        left = failed.retry_at - self.clock() if failed else 0.0
        if failed is None or left <= 0 or failed.command != command:
            return None
        after = f"{failed.failures} failed launches in a row" if failed.failures > 1 else "a failed launch"
        return BotFault(failed.fault.fault, (
            f"launched bot {name!r} {LAUNCH_SKIPPED} for another {left:.0f} s after {after} "
            f"(the wait doubles with each failed launch, up to {self.policy.max_s:g} s); last: {failed.fault.reason}"
        ))

    def failed(self, name: str, command: str, launch: object, fault: BotFault) -> BotFault:
        """Record that `launch` of `command` did not connect; the fault to report (the first one
        recorded for that launch)."""
        previous = self.failed_launches.get(name)
        if previous is not None and previous.launch is launch:
            return previous.fault
        failures = 1 + (previous.failures if previous and previous.command == command else 0)
        retry_at = self.clock() + self.policy.delay_s(failures)
        self.failed_launches[name] = FailedLaunch(command, launch, fault, failures, retry_at)
        return fault

    def connected(self, name: str) -> None:
        """The bot is connected: its next failure starts the count again."""
        self.failed_launches.pop(name, None)
