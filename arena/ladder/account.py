"""The ladder's one-line account of the arena's own faults, for its operator (docs/operations.md).

Each line is said once, when the thing happens, in the ladder's log (stderr, stamped with the UTC
time) and stored as the ladder's note (`tournament.note`), which `arena ladder status` and the
dashboard's ladder page (/api/ladder) show: the gateway gone (the matches it cut short are played
again) and back, a takeover after the previous run was killed, a Ray worker lost.
"""

from __future__ import annotations

import logging
import sys
import time
from datetime import UTC, datetime

from arena.store import OUTAGE_ERRORS, Store, TournamentInfo

log = logging.getLogger("arena.ladder")
STILL_DOWN_SECONDS = 30.0  # while the database stays down, the log says so this often
WORKER_NOTE_SECONDS = 10.0  # a worker's lost batch comes back as several outcomes: one line for them


class Account:
    """What the ladder tells its operator about faults that are the arena's, not a bot's."""

    def __init__(self, store: Store, info: TournamentInfo) -> None:
        self.store, self.info = store, info
        self.gone_since: float | None = None  # when the gateway was first found gone, while it is
        self.replayed: set[int] = set()  # the matches (indexes) its absence sent back to be played again
        self.last_worker_note = 0.0
        self.down_since: float | None = None  # when the database was found down
        self.last_still_down = 0.0

    def say(self, line: str) -> None:
        """Log the line and store it as the ladder's note (a database that is down keeps the log's)."""
        text = f"{datetime.now(UTC):%Y-%m-%d %H:%M:%S} UTC: {line}"
        print(f"ladder {self.info.id} of {self.info.game_id}: {text}", file=sys.stderr, flush=True)
        try:
            self.store.set_tournament_note(self.info.id, text)
        except OUTAGE_ERRORS as error:
            log.warning("could not store the ladder's note: %s", " ".join(str(error).split())[:300])

    def gateway_gone(self, index: int, why: str) -> None:
        self.replayed.add(index)
        if self.gone_since is None:
            self.gone_since = time.monotonic()
            self.say(f"the gateway stopped or cannot be reached ({why[:200]}); the matches it cut short are not "
                     "results and no bot is blamed: they are played again, as planned, once it answers")

    def played(self) -> None:
        """A match came back played: the gateway, if it was gone, is back."""
        if self.gone_since is not None:
            self.say(f"the gateway answers again after {time.monotonic() - self.gone_since:.0f} s; "
                     f"{len(self.replayed)} matches it cut short or could not start are played again, none "
                     "lost, no bot blamed")
            self.gone_since, self.replayed = None, set()

    def database_down(self, error: Exception, kept: int) -> None:
        """Said in the log only: the note cannot be stored while the database is down."""
        self.down_since = time.monotonic()
        why = " ".join(str(error).split())[:200]
        self.say(f"the database cannot be written or read ({type(error).__name__}: {why}); the ladder waits and "
                 f"tries again every few seconds, {kept} results kept in memory, no bot blamed")

    def still_down(self, error: Exception) -> None:
        """Said in the log about every STILL_DOWN_SECONDS while the database stays down."""
        if time.monotonic() - self.last_still_down >= STILL_DOWN_SECONDS:
            self.last_still_down = time.monotonic()
            why = " ".join(str(error).split())[:200]
            print(f"ladder {self.info.id} of {self.info.game_id}: the database is still down "
                  f"({type(error).__name__}: {why}); waiting", file=sys.stderr, flush=True)

    def database_back(self, kept: int) -> None:
        """Said once the database answers; matches the gateway cut short meanwhile were the outage's
        (a gateway that cannot read its database answers as gone): this line covers them too."""
        waited = time.monotonic() - (self.down_since or time.monotonic())
        self.gone_since, self.replayed = None, set()
        self.say(f"the database answers again after {waited:.0f} s; the {kept} results kept in memory are "
                 "written and the matches that were under way are played again as planned: none lost, none "
                 "twice, no bot blamed")

    def worker_lost(self, index: int, attempts: int) -> None:
        """A match the executor had to submit again (its worker or node died)."""
        if time.monotonic() - self.last_worker_note >= WORKER_NOTE_SECONDS:
            self.last_worker_note = time.monotonic()
            self.say(f"a worker died under match {index} (and the others of its task): Ray played them again "
                     f"({attempts} attempts), none lost, no bot blamed")

    def took_over(self, replayed: int, dropped: int) -> None:
        """A run started on planned matches the previous run left unplayed (it was killed)."""
        left = f", {dropped} dropped (a bot of theirs left the field)" if dropped else ""
        self.say(f"taken over from a run that ended without stopping (killed?): {replayed} matches it had planned "
                 f"and not stored are played now with their seats and seeds{left}; nothing stored was lost")
