"""The named values of how a seat, a match and a run end or stand: the words stored in the
database (`seat.termination`, `match.status`, `tournament.status`, `sprt.verdict`), in match
records and in the JSON the CLI and the dashboard serve.

Each is an `enum.StrEnum`: a member is equal to its string (`Termination.CRASH == "crash"`), hashes
like it and is written as it (`json.dumps`, the database drivers), so a value read back from a row
or a record compares equal to its member and nothing stored changes. Compare and assign members,
never the bare strings (tests/test_outcomes.py checks the source). On floor 0: the store
filters by them, and every room above it reads them.
"""

from __future__ import annotations

import enum


class Termination(enum.StrEnum):
    """How a seat's match ended (fastchess `MatchTermination`, python-chess `Termination`)."""

    NORMAL = "normal"  # played to the end by the rules
    TIMEOUT = "timeout"  # ran out of time
    ILLEGAL_ACTION = "illegal_action"  # answered an action that was not legal
    PROTOCOL_ERROR = "protocol_error"  # sent a malformed or unexpected message
    DISCONNECT = "disconnect"  # the connection dropped
    CRASH = "crash"  # a launched bot's process died or never connected
    ABORTED = "aborted"  # an error inside the arena: the match is not rated


class FaultKind(enum.StrEnum):
    """What went wrong with one of a seat's decisions (a record's `faults`): each is also the
    Termination of a seat forfeited for it (`Termination(kind)`), so the values are the same."""

    TIMEOUT = "timeout"
    ILLEGAL_ACTION = "illegal_action"
    PROTOCOL_ERROR = "protocol_error"
    DISCONNECT = "disconnect"
    CRASH = "crash"


class MatchStatus(enum.StrEnum):
    """A stored match: played to its end (rated), or given up by the arena (never rated)."""

    FINISHED = "finished"
    ABORTED = "aborted"


class TournamentStatus(enum.StrEnum):
    """A stored run (a tournament, an SPRT test or a ladder: one `tournament` row each)."""

    RUNNING = "running"  # being played (or its process died: see TournamentInfo.seems_stopped)
    INTERRUPTED = "interrupted"  # stopped early; `resume` plays the rest
    FINISHED = "finished"  # every match played (a test: decided)
    # a ladder's, steered from other processes (docs/ladder.md)
    PAUSED = "paused"  # no new table; the matches under way finish
    STOPPING = "stopping"  # the same, then the run ends
    STOPPED = "stopped"  # the run ended on `stopping` (or a signal)


class Verdict(enum.StrEnum):
    """An SPRT test's verdict; a test without one (None) is still playing."""

    H1 = "H1"  # A is better than B by at least elo1
    H0 = "H0"  # A is better than B by at most elo0
    UNDECIDED = "undecided"  # max pairs reached first
