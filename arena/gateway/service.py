"""Thin gRPC servicers over `Gateway`: the bots' `BotGateway.Play` stream and the `MatchHost` calls.

`Play` is registered with raw bytes as its request type, so a message that does not parse reaches
`Session.receive` and becomes a recorded protocol fault instead of a broken stream. It writes with
`context.write` (not a generator), so a write stuck behind a bot that does not read can be cancelled.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections.abc import AsyncIterator, Awaitable, Iterable
from typing import TYPE_CHECKING, Any, TypeAlias, TypeVar

import grpc

from arena.errors import ArenaError
from arena.gateway.core import AlreadyConnected, BotDisabled, Gateway
from arena.gateway.host_calls import HOST_ERRORS, HostStream, close_reply, host_status, open_reply
from arena.gateway.sessions import BotFault, Revoked, Session
from arena.gateway.throttle import RateLimitedLog
from arena.link.hostkey import HOST_KEY_HEADER
from arena.store import RetiredToken
from arena.v1 import bot_pb2 as pb
from arena.v1 import host_pb2, host_pb2_grpc

log = logging.getLogger("arena.gateway")

if TYPE_CHECKING:
    # grpc-stubs make the servicer context generic in its request and reply; grpc's class is not
    # subscriptable at run time, so the alias exists for the type checker only.
    Context: TypeAlias = grpc.aio.ServicerContext[Any, Any]

T = TypeVar("T")

MISSING_TOKEN = (
    "missing bot token: send the call metadata 'authorization: Bearer <token>' with the token "
    "that `arena bot register NAME` printed"
)
NOT_BEARER = (
    "the 'authorization' header must be 'Bearer <token>' (the word Bearer, a space, then the token that "
    "`arena bot register NAME` printed); this one has no Bearer scheme or no token after it"
)
UNKNOWN_TOKEN = (
    "unknown bot token: no registered bot has this token in the gateway's database. A bot's token stops "
    "working when it is rotated or revoked: after `arena bot token NAME --rotate` only the new token works, "
    "and a removed bot has none. A new bot gets one from `arena bot register NAME`, run against the database "
    "the gateway uses (its --db or $ARENA_DB)"
)


def unknown_token(retired: RetiredToken | None) -> str:
    """Why a token opens no stream: rotated or removed when the database kept it as retired."""
    if retired is None:
        return UNKNOWN_TOKEN
    when = f"{retired.at:%Y-%m-%d %H:%M} UTC"
    if retired.why == "rotated":
        return (f"this token of bot {retired.bot!r} was rotated on {when}: only its newest token works — the one "
                f"`arena bot token {retired.bot} --rotate` (or `arena-bot token {retired.bot} --rotate`) printed")
    return (f"bot {retired.bot!r} was removed on {when}: its token no longer works "
            "(`arena bot register NAME` makes a new bot)")


class BadCredentials(ArenaError):
    """The call metadata carries no usable bot token; the message says what is expected."""


def bearer_token(metadata: Iterable[tuple[str, str | bytes]] | None) -> str:
    """The token of the first `authorization` header, which must read `Bearer <token>`.

    The scheme is case-insensitive and spaces around the scheme and the token are ignored
    (RFC 6750 section 2.1); anything else is a BadCredentials that never echoes the value.
    """
    values = [value for key, value in metadata or () if key.lower() == "authorization"]
    if not values:
        raise BadCredentials(MISSING_TOKEN)
    scheme, _, token = str(values[0]).strip().partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise BadCredentials(NOT_BEARER)
    return token.strip()


class BotStreamService:
    """`arena.v1.BotGateway/Play`: one stream per connected bot."""

    def __init__(self, gateway: Gateway) -> None:
        self.gateway = gateway
        self.refusals = RateLimitedLog(log)  # anybody can open streams: refusals must not flood the log

    def handler(self) -> grpc.GenericRpcHandler:
        play: grpc.RpcMethodHandler[bytes, pb.ArenaMessage] = grpc.stream_stream_rpc_method_handler(
            self.play, request_deserializer=None, response_serializer=pb.ArenaMessage.SerializeToString
        )
        return grpc.method_handlers_generic_handler("arena.v1.BotGateway", {"Play": play})

    async def play(self, requests: AsyncIterator[bytes], context: Context) -> None:
        session = await self._open(context)
        reader = asyncio.create_task(self._read(requests, session))
        detail = "the connection was cancelled"
        try:
            await session.drain(context.write)
        except Exception as error:  # noqa: BLE001 - a write on a broken stream: the bot is gone
            detail = f"connection lost: {type(error).__name__}"
        else:
            detail = session.ended.reason if session.ended else "the bot closed its stream"
            if (code := _end_status(session.ended)) is not None:
                # set, not abort(): abort waits until the status is delivered, which is never for a
                # bot that does not read; returning hands the status to gRPC and lets go at once
                context.set_code(code)
                context.set_details(detail)
        finally:
            reader.cancel()
            await self.gateway.disconnect(session, detail)

    async def _open(self, context: Context) -> Session:
        try:
            token = bearer_token(context.invocation_metadata())
        except BadCredentials as error:
            self.refusals.info("refused a connection from %s: no Bearer token", context.peer())
            await context.abort(grpc.StatusCode.UNAUTHENTICATED, str(error))
        try:
            known = self.gateway.authenticate(token)
        except BotDisabled as error:
            self.refusals.info("refused a connection from %s: %s", context.peer(), error)
            await context.abort(grpc.StatusCode.PERMISSION_DENIED, str(error))
        if known is None:
            self.refusals.info("refused a connection from %s: unknown token", context.peer())
            await context.abort(grpc.StatusCode.UNAUTHENTICATED, unknown_token(self.gateway.store.retired_token(token)))
        name, token_hash = known
        try:
            return await self.gateway.connect(name, context.peer(), token_hash)
        except AlreadyConnected as error:
            self.refusals.info("refused a second connection for %r from %s", name, context.peer())
            await context.abort(grpc.StatusCode.ALREADY_EXISTS, str(error))
            raise  # unreachable: abort raises

    async def _read(self, requests: AsyncIterator[bytes], session: Session) -> None:
        """Feed the bot's messages to its session; when the bot stops sending, the session ends."""
        detail = "the bot closed its stream"
        try:
            async for data in requests:
                solicited = session.receive(data)
                if session.ended is not None:
                    return
                if not solicited and (wait_s := session.throttle.take()):
                    await asyncio.sleep(wait_s)  # stop reading a flooding connection (throttle.py)
        except asyncio.CancelledError:
            raise
        except Exception as error:  # the transport failed: the bot is gone
            detail = f"connection lost: {type(error).__name__}"
        await self.gateway.disconnect(session, detail)


class MatchHostService(host_pb2_grpc.MatchHostServicer):  # type: ignore[misc]  # untyped generated servicer
    """`arena.v1.MatchHost`: what match runners call; every call but HostLeg needs the host key."""

    def __init__(self, gateway: Gateway, host_key: str, host_leg_port: int) -> None:
        self.gateway = gateway
        self.host_key = host_key
        self.host_leg_port = host_leg_port

    async def _check_key(self, context: Context) -> None:
        given = dict(context.invocation_metadata() or ()).get(HOST_KEY_HEADER, "")
        if not (isinstance(given, str) and secrets.compare_digest(given, self.host_key)):
            await context.abort(
                grpc.StatusCode.UNAUTHENTICATED,
                f"MatchHost calls need the arena host key in metadata {HOST_KEY_HEADER!r} "
                "($ARENA_HOST_KEY or ~/.config/arena/host.key); bots use BotGateway.Play",
            )

    async def _answer(self, context: Context, reply: Awaitable[T]) -> T:
        """The call's reply; an error of HOST_ERRORS (host_calls.py) becomes the call's status."""
        try:
            return await reply
        except tuple(HOST_ERRORS) as error:
            await context.abort(grpc.StatusCode[host_status(error) or "INTERNAL"], str(error))
        raise AssertionError("unreachable: abort raises")

    async def OpenSeat(self, request: host_pb2.OpenSeatRequest,  # noqa: N802
                       context: Context) -> host_pb2.SeatReply:
        await self._check_key(context)
        return await self._answer(context, open_reply(self.gateway, request))

    async def Decide(self, request: host_pb2.DecideRequest, context: Context) -> host_pb2.DecideReply:  # noqa: N802
        await self._check_key(context)
        return await self._answer(context, self.gateway.decide(request))

    async def CloseSeat(self, request: host_pb2.CloseSeatRequest,  # noqa: N802
                        context: Context) -> host_pb2.SeatReply:
        await self._check_key(context)
        return await self._answer(context, close_reply(self.gateway, request))

    async def Host(self, request_iterator: AsyncIterator[host_pb2.HostCall],  # noqa: N802
                   context: Context) -> None:
        await self._check_key(context)
        await HostStream(self.gateway, context.write).serve(request_iterator)

    async def HostLeg(self, request: host_pb2.HostLegRequest,  # noqa: N802
                      context: Context) -> host_pb2.HostLegReply:
        return host_pb2.HostLegReply(port=self.host_leg_port)  # no key: the leg itself asks for proof

    async def CheckAccess(self, request: host_pb2.CheckAccessRequest,  # noqa: N802
                          context: Context) -> host_pb2.CheckAccessReply:
        await self._check_key(context)
        return host_pb2.CheckAccessReply(closed=await self._answer(context, self.gateway.revoke()))


def _end_status(ended: BotFault | None) -> grpc.StatusCode | None:
    """The status a stream ends with when the arena ended its session, else None (a plain end)."""
    if isinstance(ended, Revoked):
        return grpc.StatusCode[ended.status]
    if ended is not None and ended.fault == pb.TERMINATION_PROTOCOL_ERROR:
        return grpc.StatusCode.INVALID_ARGUMENT
    return None
