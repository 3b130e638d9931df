"""Time controls: a per-decision allowance, a per-match time bank and a transport grace.

A connected bot is told `time_left_ms = decision_ms + bank left` for every decision. The time a
decision takes past its allowance is taken from the bank; unused allowance is not saved. The arena
waits `grace_ms` longer than `time_left_ms` before it calls the decision a timeout, so network
jitter is never charged as a fault — but time spent in the grace still empties the bank.
Times are measured by the arena (at the gateway), never reported by the bot.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class TimeControl:
    """The time rules of a match, in milliseconds; configurable per match and per tournament."""

    decision_ms: int = 1000
    bank_ms: int = 10_000
    grace_ms: int = 250

    def __post_init__(self) -> None:
        for name in ("decision_ms", "bank_ms", "grace_ms"):
            value = getattr(self, name)
            if not isinstance(value, int) or value < 0:
                raise ValueError(f"TimeControl {name} must be a whole number of milliseconds >= 0, not {value!r}")
        if self.decision_ms + self.bank_ms == 0:
            raise ValueError("TimeControl needs decision_ms or bank_ms above 0: a bot needs some time")


def per_move(time_per_move_ms: int | None) -> TimeControl:
    """The time control of a tournament or `arena play --time-per-move-ms`: the defaults, with the
    decision allowance set when one is given; ValueError (in the flag's words) below 1 ms."""
    if time_per_move_ms is None:
        return TimeControl()
    if time_per_move_ms < 1:
        raise ValueError(f"--time-per-move-ms must be at least 1, not {time_per_move_ms}")
    return TimeControl(decision_ms=time_per_move_ms)


class Clock:
    """One seat's clock in one match."""

    def __init__(self, control: TimeControl) -> None:
        self.control = control
        self.bank_ms = float(control.bank_ms)

    def time_left_ms(self) -> int:
        """What the bot is told it has for the next decision."""
        return self.control.decision_ms + int(self.bank_ms)

    def deadline_ms(self) -> int:
        """How long the arena waits for the next decision: time left plus the transport grace."""
        return self.time_left_ms() + self.control.grace_ms

    def charge(self, elapsed_ms: float) -> bool:
        """Spend a decision's time; False when it came after the deadline (a timeout)."""
        in_time = elapsed_ms <= self.deadline_ms()
        self.bank_ms = max(0.0, self.bank_ms - max(0.0, elapsed_ms - self.control.decision_ms))
        return in_time
