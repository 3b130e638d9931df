"""What the authors' service does, apart from gRPC (arena/gateway/authors.py is the thin servicer).

An author (arena/store/authors.py) acts only on their own bots: every call on another author's
bot, or on the operator's, is `NotYours` and is refused before anything is read or written. The
limits of `AuthorConfig` hold per author: bots registered, versions stored per hour (a sliding
hour over the stored versions' times, so it holds across gateway restarts) and the size of one
submitted archive. Failed keys are counted per peer address (`AuthFailures`).

Everything here blocks (the database, the disk): the servicer runs it on worker threads, never on
the gateway's event loop. Refusals are `AuthorError`s whose `detail` is one line that says what
was wrong and what is valid.
"""

from __future__ import annotations

import os
import tempfile
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from arena.errors import ArenaError, StoreError, UsageError
from arena.gateway.retry import LAUNCH_SKIPPED
from arena.gateway.seat_replay import ReplayUnavailable, seat_replay
from arena.outcomes import TournamentStatus
from arena.store import AuthorInfo, BotInfo, BotLog, BotVersion, MatchSummary, Store, check_bot_name
from arena.store import dashboard_queries as dq
from arena.store.dashboard_queries import MatchFilter
from arena.submissions import (
    Limits,
    StoredFiles,
    SubmissionError,
    default_root,
    prepare_root,
    remove_tree,
    store_submission,
)
from bots import bot_names, is_builtin
from engine import registry

HOUR = timedelta(hours=1)
FORMATS = ("tar.gz", "zip")
MAX_PAGE = 200  # matches per ListMatches page: the store may hold millions


@dataclass(frozen=True)
class AuthorConfig:
    """The authors' limits (`arena serve --author-...`, docs/authors.md) and where versions go."""

    max_bots: int = 5  # registered bots per author
    submissions_per_hour: int = 10  # versions stored per author in any hour
    max_archive_bytes: int = Limits().max_bytes  # one submitted archive, as sent
    unpacked: Limits = Limits()  # what it may unpack to: the limits of a local `arena bot submit`
    submissions_root: Path | None = None  # default: arena.submissions.default_root()
    auth_failures: int = 10  # failed keys from one peer address ...
    auth_window_s: float = 60.0  # ... within this window; then it is refused until the window passes
    clock: Callable[[], float] = field(default=time.time, compare=False)  # seconds since the epoch; tests move it
    # plays an author's try (arena/trial.py's play_trial, set by `arena serve`); None: tries are off
    trial: Callable[[Store, Trial], list[TrialMatch]] | None = field(default=None, compare=False)
    max_try_matches: int = 4  # matches one try may ask for
    tries_at_once: int = 2  # tries played at once by this gateway (each author: one at a time)
    dashboard_url: str = ""  # the dashboard's address, for links to match pages ("": not known)


@dataclass(frozen=True)
class Trial:
    """An author's try: files unpacked with a submission's checks (not stored as a version) and
    how many matches to play of them, in which game."""

    bot: str
    command: str
    folder: Path
    sha256: str
    game_id: str
    matches: int
    seed: int


@dataclass(frozen=True)
class TrialMatch:
    """One match of a try, as its author sees it: the table, the bot's seat and how it did there."""

    seats: tuple[str, ...]
    seat: int
    termination: str = ""
    reason: str = ""
    fault: str = ""  # its first fault, in one line ("" when it played cleanly)
    strikes: int = 0
    rank: int | None = None
    score: float | None = None
    log: str = ""  # its own output while its seat was open (the tail)
    error: str = ""  # an arena-side failure: the match was not played to its end


class AuthorError(ArenaError):
    """A refused call; `detail` says why, in one line."""

    def __init__(self, detail: str) -> None:
        super().__init__(detail)
        self.detail = detail


class Unauthenticated(AuthorError):
    """No author has this key, or the author is disabled."""


class NotYours(AuthorError):
    """The bot is another author's (or the operator's)."""


class NoSuchBot(AuthorError):
    """No registered bot has this name."""


class Taken(AuthorError):
    """The name is already a bot's."""


class LimitReached(AuthorError):
    """A limit of AuthorConfig (or of failed keys) was reached."""


class BadRequest(AuthorError):
    """Input that can never work as sent."""


class NotReleased(AuthorError):
    """Not yet: the replay would tell what other matches still to be played hold."""


@dataclass(frozen=True)
class BotListing:
    """One of an author's bots with its versions, each with its ratings (LeaderboardRows)."""

    bot: BotInfo
    versions: list[tuple[BotVersion, list[Any]]]


class Authoring:
    """The authors' calls over one Store, checked against one AuthorConfig."""

    def __init__(self, store: Store, config: AuthorConfig) -> None:
        self.store = store
        self.config = config
        self.root = config.submissions_root or default_root()

    def author(self, key: str) -> AuthorInfo:
        """The author whose key this is; Unauthenticated when none is, or they are disabled."""
        author = self.store.author_for_key(key)
        if author is None:
            raise Unauthenticated("unknown author key: no author has this key (the arena's operator issues one "
                                  "with `arena author add NAME`; send it as 'authorization: Bearer <key>')")
        if author.disabled:
            raise Unauthenticated(f"author {author.name!r} is disabled by the arena's operator")
        return author

    def own(self, author: AuthorInfo, bot: str) -> None:
        """Nothing when `bot` is the author's; NoSuchBot or NotYours otherwise."""
        try:
            owner = self.store.bot_author(bot)
        except UsageError:
            raise NoSuchBot(f"no registered bot is named {bot!r}; your bots: {self._names(author)}") from None
        if owner != author.name:
            raise NotYours(f"bot {bot!r} is not yours: you may act only on your own bots ({self._names(author)})")

    def register(self, author: AuthorInfo, bot: str) -> str:
        """Register a new bot of the author's that dials in; its token."""
        self._check_new_bot(author, bot)
        try:
            return self.store.register_bot(bot, author_id=author.id)
        except UsageError as error:  # the name was taken (or removed) meanwhile
            raise Taken(str(error)) from None

    def check_submission(self, author: AuthorInfo, bot: str, command: str, archive_format: str) -> None:
        """Refuse a submission before any of its bytes are read: a bad header, a bot that is not the
        author's, a new bot past the bots limit, or the hour's submissions used up."""
        if archive_format not in FORMATS:
            raise BadRequest(f"archive_format {archive_format!r} is not one the arena unpacks; use one of {FORMATS}")
        if not command.strip():
            raise BadRequest("the command is empty: give the command line that starts the bot in its folder, "
                             "e.g. 'python3 bot.py'")
        if self.store.bot(bot) is None:
            self._check_new_bot(author, bot)
        else:
            self.own(author, bot)
        self._check_submission_quota(author)

    def new_upload(self, archive_format: str, size: int) -> Upload:
        """A private temporary file for an archive of `size` bytes on its way in, under the
        submissions folder; LimitReached at once when `size` is past the limit."""
        if size <= 0:
            raise BadRequest(f"the header declares an archive of {size} bytes; declare its real size (above 0)")
        if size > self.config.max_archive_bytes:
            raise LimitReached(too_large(self.config.max_archive_bytes))
        try:
            return Upload(prepare_root(self.root), archive_format, size)
        except SubmissionError as error:
            raise BadRequest(str(error)) from None

    def submit(self, author: AuthorInfo, bot: str, command: str,
               upload: Upload) -> tuple[BotVersion, StoredFiles, str | None]:
        """Store the uploaded archive as the bot's next version (registering the bot when it is new):
        the version, its stored files and the new bot's token (None for a bot already registered).
        The upload's file is removed in every case."""
        try:
            self.check_submission(author, bot, command, upload.archive_format)  # again: time has passed
            stored = store_submission(upload.path, self.root, self.config.unpacked)  # `arena bot submit`'s checks
        except SubmissionError as error:
            raise BadRequest(str(error).replace(str(upload.path), "the archive")) from None
        finally:
            upload.discard()
        token = self.register(author, bot) if self.store.bot(bot) is None else None
        return self.store.add_version(bot, command, str(stored.folder), stored.sha256), stored, token

    def check_try(self, author: AuthorInfo, bot: str, command: str, archive_format: str, game_id: str,
                  matches: int) -> None:
        """Refuse a try before any of its bytes are read: tries off, a bad header, another's bot."""
        if self.config.trial is None:
            raise BadRequest("this arena plays no tries (its gateway was started without them); "
                             "submit a version instead")
        if game_id not in registry.GAMES:
            raise BadRequest(f"unknown game {game_id!r}; valid games: {', '.join(registry.game_ids())}")
        if not 1 <= matches <= self.config.max_try_matches:
            raise BadRequest(f"a try plays 1 to {self.config.max_try_matches} matches, not {matches}")
        if archive_format not in FORMATS:
            raise BadRequest(f"archive_format {archive_format!r} is not one the arena unpacks; use one of {FORMATS}")
        if not command.strip():
            raise BadRequest("the command is empty: give the command line that starts the bot in its folder, "
                             "e.g. 'python3 bot.py'")
        if self.store.bot(bot) is None:  # a name not registered yet may be tried: nothing is stored
            self._check_name(bot)
        else:
            self.own(author, bot)

    def try_version(self, author: AuthorInfo, bot: str, command: str, upload: Upload, game_id: str,
                    matches: int) -> list[TrialMatch]:
        """Play the uploaded files in a few unrated matches (AuthorConfig.trial); nothing is stored:
        the files are unpacked into a private folder, removed afterwards with the upload."""
        workspace = Path(tempfile.mkdtemp(prefix=".try-", dir=prepare_root(self.root)))
        try:
            self.check_try(author, bot, command, upload.archive_format, game_id, matches)
            try:
                files = store_submission(upload.path, workspace, self.config.unpacked)
            except SubmissionError as error:
                raise BadRequest(str(error).replace(str(upload.path), "the archive")) from None
            finally:
                upload.discard()
            assert self.config.trial is not None
            seed = int(self.config.clock() * 1000)  # every try its own deal
            trial = Trial(bot, command, files.folder, files.sha256, game_id, matches, seed)
            return self.config.trial(self.store, trial)
        finally:
            remove_tree(workspace)

    def listing(self, author: AuthorInfo, bot: str = "") -> list[BotListing]:
        """The author's bots (or only `bot`, which must be theirs) with their versions and ratings."""
        if bot:
            self.own(author, bot)
        bots = [b for b in self.store.author_bots(author.name) if not bot or b.name == bot]
        return [BotListing(b, [(v, dq.entrant_ratings(self.store, v.entrant)) for v in self.store.versions(b.name)])
                for b in bots]

    def rotate(self, author: AuthorInfo, bot: str) -> str:
        """A new token for the author's bot."""
        self.own(author, bot)
        return self.store.rotate_token(bot)

    def set_disabled(self, author: AuthorInfo, bot: str, disabled: bool) -> None:
        """Disable or enable the author's bot."""
        self.own(author, bot)
        try:
            self.store.set_disabled(bot, disabled)
        except UsageError as error:
            raise BadRequest(str(error)) from None

    def logs(self, author: AuthorInfo, bot: str, match_id: int) -> list[Any]:
        """The stored output of the author's bot in one match (Store.bot_logs: BotLog entries)."""
        self.own(author, bot)
        if logs := self.store.bot_logs(match_id, bot):
            return logs
        return self._skipped_launches(bot, match_id)

    def _skipped_launches(self, bot: str, match_id: int) -> list[BotLog]:
        """An empty log for each seat of `bot` whose launch the back-off skipped (retry.py): it
        printed nothing because it was not started for the match, which its reason says."""
        summary = dq.match_summary(self.store, match_id)
        return [BotLog(match_id, s.seat, bot, int(v) if (v := s.entrant.partition("@")[2]).isdigit() else None,
                       s.termination, s.reason, "")
                for s in (summary.seats if summary else [])
                if s.entrant.partition("@")[0] == bot and LAUNCH_SKIPPED in s.reason]

    def mine(self, author: AuthorInfo, bot: str) -> list[str]:
        """The entrants of the author's bot (`bot`, `bot@1`, ...). Another's bot is NoSuchBot with
        the very words of a bot that does not exist: reading calls do not tell whether it exists."""
        try:
            owner = self.store.bot_author(bot)
        except UsageError:
            owner = None
        if owner != author.name:
            raise NoSuchBot(f"you have no bot named {bot!r}; your bots: {self._names(author)}")
        return [bot, *(v.entrant for v in self.store.versions(bot))]

    def matches(self, author: AuthorInfo, bot: str, wanted: MatchFilter, limit: int) -> list[MatchSummary]:
        """A page of the stored matches the author's bot played that pass `wanted`, newest first."""
        entrants = self.mine(author, bot)
        if not 0 <= limit <= MAX_PAGE:
            raise BadRequest(f"limit {limit} is out of range: ask for 1 to {MAX_PAGE} matches a page "
                             "(0: 20), and the next page with before_id")
        return dq.filtered_matches_of(self.store, entrants, wanted, limit=limit or 20)

    def replay(self, author: AuthorInfo, bot: str, match_id: int, seat: int) -> dict[str, Any]:
        """Stored match `match_id` as the author's bot's seat saw it (seat_replay), once it is safe."""
        entrants = set(self.mine(author, bot))
        summary = dq.match_summary(self.store, match_id)
        seats = [s.seat for s in summary.seats if s.entrant in entrants] if summary else []
        if summary is None or not seats:
            raise NoSuchBot(f"{bot} played no stored match {match_id}; `arena-bot matches {bot}` lists its matches")
        if seat not in (-1, *seats):
            raise BadRequest(f"{bot} did not play seat {seat} of match {match_id}; it played seat(s) "
                             f"{', '.join(map(str, seats))}")
        chosen = seats[0] if seat == -1 else seat
        self._check_released(summary)
        try:
            record = self.store.match_record(match_id)
        except StoreError as error:  # its record was pruned
            raise NoSuchBot(f"match {match_id} has no replay: {error}") from None
        log = next((entry for entry in self.store.bot_logs(match_id, bot) if entry.seat == chosen), None)
        try:
            return seat_replay(record or {}, match_id, chosen, [s.entrant for s in summary.seats], log)
        except ReplayUnavailable as error:
            raise BadRequest(str(error)) from None

    def _check_released(self, summary: MatchSummary) -> None:
        """Withhold a replay while another rotation of its table may still be played: the rotations
        share one chance seed (duplicate play), so this one names the cards and dice of the others."""
        tournament = self.store.tournament(summary.tournament_id)
        if tournament is None or tournament.status == TournamentStatus.FINISHED:
            return
        if dq.rotations_stored(self.store, summary.tournament_id, summary.chance_seed) < len(summary.seats):
            raise NotReleased(f"match {summary.id} is replayed once every seat rotation of its table has been "
                              "played: they share its cards and dice (duplicate play); try again later")

    def _check_new_bot(self, author: AuthorInfo, bot: str) -> None:
        self._check_name(bot)
        if self.store.bot(bot) is not None:
            raise Taken(f"a bot named {bot!r} is already registered; choose another name")
        if (count := len(self.store.author_bots(author.name))) >= self.config.max_bots:
            raise LimitReached(f"limit reached: {count} bots registered, at most {self.config.max_bots} per author "
                               "(--author-max-bots); it does not reset by itself: ask the arena's operator")

    def _check_name(self, bot: str) -> None:
        try:
            check_bot_name(bot)
        except UsageError as error:
            raise BadRequest(str(error)) from None
        if is_builtin(bot):
            raise BadRequest(f"{bot!r} is the name of a built-in bot ({', '.join(bot_names())}); choose another name")

    def _check_submission_quota(self, author: AuthorInfo) -> None:
        limit = self.config.submissions_per_hour
        now = datetime.fromtimestamp(self.config.clock(), UTC)
        recent = self.store.author_submissions_since(author.name, now - HOUR)
        if len(recent) >= limit:
            frees = recent[len(recent) - limit] + HOUR  # when the window lets one more in
            minutes = max(1, round((frees - now).total_seconds() / 60))
            raise LimitReached(f"limit reached: {limit} submissions per hour per author "
                               f"(--author-submissions-per-hour); it resets at {frees:%Y-%m-%d %H:%M:%S} UTC, "
                               f"in about {minutes} min")

    def _names(self, author: AuthorInfo) -> str:
        return ", ".join(b.name for b in self.store.author_bots(author.name)) or "none yet"


def utc_time(name: str, text: str) -> datetime | None:
    """An ISO 8601 time (UTC when it names no zone), in UTC; None for ""."""
    if not text:
        return None
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        raise BadRequest(f"{name} {text!r} is not a time: write ISO 8601, e.g. 2026-12-04 or "
                         "2026-12-04T18:30 (UTC unless it names a zone)") from None
    return moment.astimezone(UTC) if moment.tzinfo else moment.replace(tzinfo=UTC)


def too_large(limit: int) -> str:
    return (f"limit reached: the archive is larger than {limit / (1024 * 1024):g} MiB, the most one submission "
            "may send (--author-max-archive-mb); it does not reset: leave out what the bot does not need to run")


class Upload:
    """An archive of `size` bytes arriving in chunks: written to a private file (mode 0600, from
    mkstemp) in the submissions folder, never held in memory; refused as soon as it grows past
    `size` (the server refuses a size past its limit before making an Upload), and by `finish`
    when it ended short of it (the stream was cut)."""

    def __init__(self, root: Path, archive_format: str, size: int) -> None:
        # the suffix tells store_submission how to unpack it; the leading dot keeps it apart
        # from the stored trees, which are named by their hash
        descriptor, name = tempfile.mkstemp(prefix=".upload-", suffix="." + archive_format, dir=root)
        self.path = Path(name)
        self.archive_format = archive_format
        self.declared = size
        self.size = 0
        self._file = os.fdopen(descriptor, "wb")

    def write(self, chunk: bytes) -> None:
        """Append a chunk; BadRequest (and the file removed) past the declared size."""
        self.size += len(chunk)
        if self.size > self.declared:
            self.discard()
            raise BadRequest(f"the stream sent more than the {self.declared} bytes its header declared; "
                             "declare the archive's real size")
        self._file.write(chunk)

    def finish(self) -> None:
        """The stream ended: close the file for unpacking; BadRequest (file removed) when it was cut short."""
        self._file.close()
        if self.size != self.declared:
            self.discard()
            raise BadRequest(f"the stream ended after {self.size} of the {self.declared} bytes its header declared "
                             "(it was cut); send the archive again")

    def discard(self) -> None:
        """Close and remove the file (again is harmless)."""
        self._file.close()
        self.path.unlink(missing_ok=True)


class AuthFailures:
    """Failed keys per peer address: after `limit` within `window_s`, that address is refused
    until the oldest of them is `window_s` old (the refused attempts are not counted, so a peer
    that keeps guessing gets `limit` guesses per window, not more)."""

    def __init__(self, limit: int, window_s: float, clock: Callable[[], float]) -> None:
        self.limit, self.window_s, self.clock = limit, window_s, clock
        self._failures: dict[str, deque[float]] = {}

    def refused_for(self, peer: str) -> float:
        """Seconds until `peer` may try a key again (0.0: now)."""
        failures = self._recent(peer)
        if len(failures) < self.limit:
            return 0.0
        return failures[-self.limit] + self.window_s - self.clock()

    def failed(self, peer: str) -> None:
        """Count a failed key from `peer`."""
        self._recent(peer).append(self.clock())
        if len(self._failures) > 10_000:  # many peers: forget those with nothing recent
            for stale in [p for p, times in self._failures.items()
                          if not times or times[-1] < self.clock() - self.window_s]:
                del self._failures[stale]

    def _recent(self, peer: str) -> deque[float]:
        failures = self._failures.setdefault(peer, deque(maxlen=self.limit))
        while failures and failures[0] <= self.clock() - self.window_s:
            failures.popleft()
        return failures
