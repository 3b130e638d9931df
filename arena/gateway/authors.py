"""The thin gRPC servicer of `arena.v1.Authors` (proto/arena/v1/authors.proto, docs/authors.md).

Every call: the failed keys of the peer's address claiming the key's author name are checked
(RESOURCE_EXHAUSTED while refused: arena/gateway/key_failures.py), the key
in `authorization: Bearer <key>` is looked up (UNAUTHENTICATED), then arena/gateway/authoring.py
does the work on a worker thread (asyncio.to_thread), so the database and the disk never stall
the event loop that the bots' streams share. Calls that change an author's bots run one at a time
per author, so two at once cannot both pass a limit.

A submission's chunks are appended to the upload file on the loop itself: a 64 KiB write into the
page cache takes microseconds, less than a hop to a thread and back, and a write cannot then be
left running in a thread after a cancelled call removed its file. Once the last chunk is in, the
version is stored to the end even if the caller goes away (asyncio.shield): a submission is
either wholly stored or leaves nothing behind.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator, Callable
from typing import TYPE_CHECKING, Any, NoReturn, TypeVar

import grpc

from arena.gateway.authoring import (
    AuthorConfig,
    AuthorError,
    Authoring,
    BadRequest,
    BotListing,
    LimitReached,
    NoSuchBot,
    NotReleased,
    NotYours,
    Taken,
    TrialMatch,
    Unauthenticated,
    Upload,
    utc_time,
)
from arena.gateway.core import Gateway
from arena.gateway.key_failures import KeyFailures
from arena.gateway.service import BadCredentials, bearer_token
from arena.gateway.throttle import RateLimitedLog
from arena.outcomes import MatchStatus
from arena.store import AuthorInfo, BotVersion, MatchSummary
from arena.store.authors import key_author
from arena.store.dashboard_queries import MatchFilter
from arena.v1 import authors_pb2 as pb
from arena.v1 import authors_pb2_grpc

if TYPE_CHECKING:
    from arena.gateway.service import Context

log = logging.getLogger("arena.gateway.authors")

CODES: dict[type[AuthorError], grpc.StatusCode] = {
    Unauthenticated: grpc.StatusCode.UNAUTHENTICATED,
    NotYours: grpc.StatusCode.PERMISSION_DENIED,
    NoSuchBot: grpc.StatusCode.NOT_FOUND,
    Taken: grpc.StatusCode.ALREADY_EXISTS,
    LimitReached: grpc.StatusCode.RESOURCE_EXHAUSTED,
    BadRequest: grpc.StatusCode.INVALID_ARGUMENT,
    NotReleased: grpc.StatusCode.FAILED_PRECONDITION,
}
MISSING_KEY = ("missing or malformed author key: send the call metadata 'authorization: Bearer <key>' "
               "with the key that `arena author add NAME` printed")
T = TypeVar("T")


def peer_address(peer: str) -> str:
    """The address part of a gRPC peer (`ipv4:127.0.0.1:5555` -> `ipv4:127.0.0.1`): failed keys
    count per address, whichever port a guess comes from."""
    kind, _, rest = peer.partition(":")
    return f"{kind}:{rest.rpartition(':')[0]}" if kind in ("ipv4", "ipv6") and ":" in rest else peer


class AuthorService(authors_pb2_grpc.AuthorsServicer):  # type: ignore[misc]  # untyped generated servicer
    """`arena.v1.Authors`: an author's calls on their own bots."""

    def __init__(self, gateway: Gateway, config: AuthorConfig | None = None) -> None:
        self.gateway = gateway
        self.config = config or AuthorConfig()
        self.authoring = Authoring(gateway.store, self.config)
        self.failures = KeyFailures(self.config.auth_failures, self.config.auth_window_s, self.config.clock)
        self.refusals = RateLimitedLog(log)  # anybody can call: refusals must not flood the log
        self._locks: dict[int, asyncio.Lock] = {}
        self._uploading: set[int] = set()
        self._trying: set[int] = set()  # authors whose try is under way

    # -- the calls ---------------------------------------------------------------------------

    async def RegisterBot(self, request: pb.RegisterBotRequest,
                          context: Context) -> pb.RegisterBotReply:
        author = await self._author(context)
        token = await self._locked(context, author, self.authoring.register, author, request.bot)
        log.info("author %r registered bot %r", author.name, request.bot)
        return pb.RegisterBotReply(bot=request.bot, token=token)

    async def ListBots(self, request: pb.ListBotsRequest, context: Context) -> pb.ListBotsReply:
        author = await self._author(context)
        listings = await self._run(context, self.authoring.listing, author, request.bot)
        return pb.ListBotsReply(bots=[bot_message(listing) for listing in listings])

    async def RotateToken(self, request: pb.RotateTokenRequest,
                          context: Context) -> pb.RotateTokenReply:
        author = await self._author(context)
        token = await self._locked(context, author, self.authoring.rotate, author, request.bot)
        return pb.RotateTokenReply(token=token, streams_closed=await self.gateway.revoke())

    async def SetBotState(self, request: pb.SetBotStateRequest,
                          context: Context) -> pb.SetBotStateReply:
        author = await self._author(context)
        await self._locked(context, author, self.authoring.set_disabled, author, request.bot, request.disabled)
        return pb.SetBotStateReply(streams_closed=await self.gateway.revoke() if request.disabled else 0)

    async def ReadLog(self, request: pb.ReadLogRequest, context: Context) -> pb.ReadLogReply:
        author = await self._author(context)
        logs = await self._run(context, self.authoring.logs, author, request.bot, request.match_id)
        return pb.ReadLogReply(logs=[pb.BotLogEntry(
            match_id=entry.match_id, seat=entry.seat, bot=entry.bot, version=entry.version or 0,
            termination=entry.termination, reason=entry.reason, text=entry.text) for entry in logs])

    async def ListMatches(self, request: pb.ListMatchesRequest, context: Context) -> pb.ListMatchesReply:
        author = await self._author(context)
        wanted = await self._run(context, match_filter, request)
        found = await self._run(context, self.authoring.matches, author, request.bot, wanted, request.limit)
        entrants = await self._run(context, self.authoring.mine, author, request.bot)
        page = request.limit or 20
        return pb.ListMatchesReply(
            matches=[match_message(m, set(entrants), self.config.dashboard_url) for m in found],
            next_before_id=found[-1].id if len(found) == page else 0)

    async def ReadReplay(self, request: pb.ReadReplayRequest, context: Context) -> pb.ReadReplayReply:
        author = await self._author(context)
        replay = await self._run(context, self.authoring.replay, author, request.bot, request.match_id, request.seat)
        return pb.ReadReplayReply(replay_json=json.dumps(replay, separators=(",", ":")))

    async def SubmitVersion(self, requests: AsyncIterator[pb.SubmitVersionRequest],
                            context: Context) -> pb.SubmitVersionReply:
        author = await self._author(context)
        header = await self._header(requests, context)
        if author.id in self._uploading:
            await self._abort(context, LimitReached("limit reached: one submission at a time per author; "
                                                    "wait for the one under way to finish"))
        self._uploading.add(author.id)
        try:
            await self._run(context, self.authoring.check_submission, author, header.bot, header.command,
                            header.archive_format)
            upload = await self._run(context, self.authoring.new_upload, header.archive_format, header.size)
            await self._receive(requests, upload, context)
            job = asyncio.ensure_future(self._locked(context, author, self.authoring.submit, author, header.bot,
                                                     header.command, upload))
            version, stored, token = await asyncio.shield(job)  # stored to the end once all bytes are in
        finally:
            self._uploading.discard(author.id)
        log.info("author %r stored %s (%d bytes sent)", author.name, version.entrant, upload.size)
        return pb.SubmitVersionReply(version=version_message(version, []), token=token or "")

    async def TryVersion(self, requests: AsyncIterator[pb.TryVersionRequest],
                         context: Context) -> pb.TryVersionReply:
        author = await self._author(context)
        header = await self._header(requests, context, "TryVersion")
        submit = header.submit
        if not self._check_try_quota(author):
            await self._abort(context, self._try_refusal(author))
        self._trying.add(author.id)
        job: asyncio.Future[list[TrialMatch]] | None = None
        try:
            await self._run(context, self.authoring.check_try, author, submit.bot, submit.command,
                            submit.archive_format, header.game_id, header.matches)
            upload = await self._run(context, self.authoring.new_upload, submit.archive_format, submit.size)
            await self._receive(requests, upload, context)
            job = asyncio.ensure_future(self._run(context, self.authoring.try_version, author, submit.bot,
                                                  submit.command, upload, header.game_id, header.matches))
            # the author's try counts until its matches end, even when the caller went away meanwhile
            job.add_done_callback(lambda _: self._trying.discard(author.id))
            matches = await asyncio.shield(job)
        finally:
            if job is None:
                self._trying.discard(author.id)
        log.info("author %r tried %r in %d match(es) of %s", author.name, submit.bot, len(matches), header.game_id)
        return pb.TryVersionReply(game_id=header.game_id, matches=[trial_message(m) for m in matches])

    def _check_try_quota(self, author: AuthorInfo) -> bool:
        return author.id not in self._trying and len(self._trying) < self.config.tries_at_once

    def _try_refusal(self, author: AuthorInfo) -> LimitReached:
        if author.id in self._trying:
            return LimitReached("limit reached: one try at a time per author; wait for the one under way to finish")
        return LimitReached(f"limit reached: the arena plays {self.config.tries_at_once} tries at once, all under "
                            "way now; try again in a minute")

    # -- plumbing ----------------------------------------------------------------------------

    async def _header(self, requests: AsyncIterator[Any], context: Context, call: str = "SubmitVersion") -> Any:
        first = await anext(aiter(requests), None)
        if first is None or not first.HasField("header"):
            await self._abort(context, BadRequest(f"the first message of {call} must be its header "
                                                  "(bot, command, archive_format), then the archive's chunks"))
        return first.header

    async def _receive(self, requests: AsyncIterator[Any], upload: Upload,
                       context: Context) -> None:
        """Every chunk into the upload file; the file is removed if the stream breaks or is refused."""
        try:
            async for message in requests:
                if message.HasField("header"):
                    raise BadRequest("a second header: after the first message, send only the archive's chunks")
                upload.write(message.chunk)
            if context.cancelled():
                raise asyncio.CancelledError  # a cancelled call's requests can simply end
            upload.finish()
        except AuthorError as error:
            upload.discard()
            await self._abort(context, error)
        except BaseException:  # the caller went away (cancelled) or the stream broke: nothing stays
            upload.discard()
            raise

    async def _author(self, context: Context) -> AuthorInfo:
        """The caller's author, by its key; failed keys count per address and claimed author name
        (arena/gateway/key_failures.py), and the log names the author a refused key claimed, never the key."""
        peer = peer_address(context.peer())
        try:
            key = bearer_token(context.invocation_metadata())
        except BadCredentials:
            key = None
        name = key_author(key or "")
        who = f"author {name!r}" if name else "a key naming no author"
        if (wait := self.failures.refused_for(peer, name)) > 0:
            self.refusals.info("authors' call from %s for %s refused: too many failed keys", peer, who)
            await self._abort(context, LimitReached(
                f"limit reached: {self.failures.why(peer, name)}; try again in {wait:.0f} s"))
        if key is None:
            self.failures.failed(peer, None)
            await self._abort(context, Unauthenticated(MISSING_KEY))
        try:
            return await asyncio.to_thread(self.authoring.author, key)
        except Unauthenticated as error:
            self.failures.failed(peer, name)
            self.refusals.info("authors' call from %s for %s refused: %s", peer, who, error.detail)
            await self._abort(context, error)
        raise AssertionError("unreachable: abort raises")

    async def _run(self, context: Context, call: Callable[..., T], *args: Any) -> T:
        """`call(*args)` on a worker thread; an AuthorError becomes the call's status."""
        try:
            return await asyncio.to_thread(call, *args)
        except AuthorError as error:
            await self._abort(context, error)
        raise AssertionError("unreachable: abort raises")

    async def _locked(self, context: Context, author: AuthorInfo, call: Callable[..., T],
                      *args: Any) -> T:
        async with self._locks.setdefault(author.id, asyncio.Lock()):
            return await self._run(context, call, *args)

    async def _abort(self, context: Context, error: AuthorError) -> NoReturn:
        if isinstance(error, NotYours | LimitReached):
            self.refusals.info("authors' call refused (%s): %s", CODES[type(error)].name, error.detail)
        await context.abort(CODES[type(error)], error.detail)


def version_message(version: BotVersion, ratings: list[Any]) -> pb.AuthorBotVersion:
    return pb.AuthorBotVersion(
        bot=version.bot, number=version.number, sha256=version.sha256, command=version.command,
        files=version.files or "", submitted_at=version.created_at.isoformat(), suspended=version.suspended or "",
        ratings=[pb.VersionRating(game_id=r.game_id, ruleset=r.ruleset, place=r.place, elo=r.elo,
                                  low=float("-inf") if r.low is None else r.low,
                                  high=float("inf") if r.high is None else r.high, games=r.games,
                                  provisional=r.low is None or r.high is None or r.provisional)
                 for r in ratings], hold=version.hold)


def match_filter(request: pb.ListMatchesRequest) -> MatchFilter:
    """The request's filters; BadRequest for a time that is not one."""
    return MatchFilter(lost=request.lost, crashed=request.crashed, opponent=request.opponent,
                       ruleset=request.ruleset, since=utc_time("since", request.since),
                       until=utc_time("until", request.until), before_id=request.before_id)


def match_message(match: MatchSummary, mine: set[str], dashboard_url: str) -> pb.AuthorMatch:
    """One match of the author's bot, with its result for the bot's (first) seat."""
    seats = [pb.MatchSeat(seat=s.seat, entrant=s.entrant, rank=s.rank or 0, score=s.score or 0.0,
                          termination=s.termination, reason=s.reason, mine=s.entrant in mine) for s in match.seats]
    link = f"{dashboard_url.rstrip('/')}/matches/{match.id}" if dashboard_url else ""
    return pb.AuthorMatch(match_id=match.id, game_id=match.game_id, ruleset=match.ruleset, status=match.status,
                          finished_at=match.finished_at.isoformat(), result=seat_result(match, mine),
                          seats=seats, link=link)


def seat_result(match: MatchSummary, mine: set[str]) -> str:
    """won, drew (first with others), lost or aborted: the author's bot's first seat's result."""
    ranks = [s.rank for s in match.seats]
    own = next((s for s in match.seats if s.entrant in mine), None)
    if match.status == MatchStatus.ABORTED or own is None or own.rank is None:
        return str(MatchStatus.ABORTED)
    if own.rank > 1:
        return "lost"
    return "drew" if ranks.count(1) > 1 else "won"


def bot_message(listing: BotListing) -> pb.AuthorBot:
    return pb.AuthorBot(name=listing.bot.name, disabled=listing.bot.disabled,
                        registered_at=listing.bot.created_at.isoformat(),
                        versions=[version_message(v, ratings) for v, ratings in listing.versions])


def trial_message(match: TrialMatch) -> pb.TrialMatch:
    return pb.TrialMatch(seats=list(match.seats), seat=match.seat, termination=match.termination, reason=match.reason,
                         fault=match.fault, strikes=match.strikes, rank=match.rank or 0, score=match.score or 0.0,
                         log=match.log, error=match.error)
