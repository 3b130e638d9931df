"""The dashboard's client of the gateway's authors' service (proto/arena/v1/authors.proto).

The author pages (dashboards/authors.py) do every action through this client, with the signed-in
author's key, so a click on the dashboard passes the same checks, quotas, rate limits and
one-line errors as `arena-bot` on the author's own machine: there is one way in. The calls block
(gRPC's synchronous stubs); the pages run them on Starlette's thread pool.

TLS to the gateway as for the arena's other clients (arena/link/tls.py): `--gateway-ca FILE`, or
`$ARENA_TLS_CA` / `$ARENA_TLS=1`.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import IO, Any

import grpc

from arena.errors import ArenaError
from arena.link.tls import ClientTLS, channel
from arena.v1 import authors_pb2 as pb
from arena.v1 import authors_pb2_grpc

CHUNK = 64 * 1024  # as arena-bot sends an archive
TIMEOUT_S = 600.0  # a large archive over a slow link; short calls answer at once
DEFAULT_GATEWAY = "127.0.0.1:50051"

# The refusals an author's page shows as they are (a one-line error of the service), and the
# status of the page that shows them. Anything else means the gateway is not reachable or broke.
SHOWN = {
    grpc.StatusCode.INVALID_ARGUMENT: 400,
    grpc.StatusCode.ALREADY_EXISTS: 409,
    grpc.StatusCode.RESOURCE_EXHAUSTED: 429,
    grpc.StatusCode.UNAUTHENTICATED: 401,
    grpc.StatusCode.PERMISSION_DENIED: 404,  # another author's bot: shown as "no such page"
    grpc.StatusCode.NOT_FOUND: 404,
    grpc.StatusCode.FAILED_PRECONDITION: 409,  # a replay not released yet
}


class ServiceError(ArenaError):
    """A refused or failed call: `status` is the HTTP status a page answers, `message` one line."""

    def __init__(self, code: grpc.StatusCode | None, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message

    @property
    def status(self) -> int:
        return SHOWN.get(self.code, 503) if self.code is not None else 503

    @property
    def not_yours(self) -> bool:
        """The bot is unknown or another author's: pages answer 404 alike, with no hint which."""
        return self.code in (grpc.StatusCode.PERMISSION_DENIED, grpc.StatusCode.NOT_FOUND)


@dataclass(frozen=True)
class Upload:
    """An archive on its way to the service: an open file of `size` bytes, read from the start."""

    bot: str
    command: str
    archive_format: str
    file: IO[bytes]
    size: int


class AuthorsClient:
    """The authors' service of the gateway at `address` (HOST:PORT), over TLS when `tls` is set."""

    def __init__(self, address: str, tls: ClientTLS | None = None) -> None:
        self.address = address
        self.tls = tls
        self._channel: grpc.Channel | None = None

    def close(self) -> None:
        if self._channel is not None:
            self._channel.close()
            self._channel = None

    def list_bots(self, key: str, bot: str = "") -> list[Any]:
        """The author's bots (AuthorBot messages), or only `bot`."""
        return list(self._call(key, "ListBots", pb.ListBotsRequest(bot=bot)).bots)

    def register(self, key: str, bot: str) -> str:
        """Register a bot that dials in; its token (shown once)."""
        return str(self._call(key, "RegisterBot", pb.RegisterBotRequest(bot=bot)).token)

    def submit(self, key: str, upload: Upload) -> Any:
        """Store the archive as the bot's next version: the SubmitVersionReply (version, token)."""
        header = pb.SubmitHeader(bot=upload.bot, command=upload.command, archive_format=upload.archive_format,
                                 size=upload.size)
        return self._call(key, "SubmitVersion", _stream(header, upload.file))

    def try_version(self, key: str, upload: Upload, game_id: str, matches: int) -> Any:
        """Play the archive in a few unrated matches, storing nothing: the TryVersionReply."""
        submit = pb.SubmitHeader(bot=upload.bot, command=upload.command, archive_format=upload.archive_format,
                                 size=upload.size)
        header = pb.TryHeader(submit=submit, game_id=game_id, matches=matches)
        return self._call(key, "TryVersion", _try_stream(header, upload.file))

    def rotate(self, key: str, bot: str) -> str:
        """A new token for the bot (shown once)."""
        return str(self._call(key, "RotateToken", pb.RotateTokenRequest(bot=bot)).token)

    def set_disabled(self, key: str, bot: str, disabled: bool) -> None:
        self._call(key, "SetBotState", pb.SetBotStateRequest(bot=bot, disabled=disabled))

    def read_log(self, key: str, bot: str, match_id: int) -> list[Any]:
        """The bot's stored output in one match (BotLogEntry messages, one per seat)."""
        return list(self._call(key, "ReadLog", pb.ReadLogRequest(bot=bot, match_id=match_id)).logs)

    def read_replay(self, key: str, bot: str, match_id: int) -> dict[str, Any]:
        """The match as the bot's (first) seat saw it, with its output at each decision (seat_replay's JSON)."""
        reply = self._call(key, "ReadReplay", pb.ReadReplayRequest(bot=bot, match_id=match_id, seat=-1))
        return json.loads(reply.replay_json)  # type: ignore[no-any-return]

    def _call(self, key: str, method: str, request: Any) -> Any:
        stub = authors_pb2_grpc.AuthorsStub(self._open())
        try:
            return getattr(stub, method)(request, metadata=(("authorization", f"Bearer {key}"),), timeout=TIMEOUT_S)
        except grpc.RpcError as error:
            raise self._error(error) from None

    def _open(self) -> grpc.Channel:
        if self._channel is None:  # one channel for every call: gRPC multiplexes them
            self._channel = channel(self.address, self.tls)
        return self._channel

    def _error(self, error: grpc.RpcError) -> ServiceError:
        code = error.code()  # type: ignore[attr-defined]
        details = (error.details() or "").replace("\n", " ")  # type: ignore[attr-defined]
        if code in SHOWN:
            return ServiceError(code, details)
        if code == grpc.StatusCode.UNIMPLEMENTED:
            return ServiceError(None, f"the server at {self.address} has no authors' service; "
                                      "the dashboard's --gateway must name the arena's gateway (`arena serve`)")
        return ServiceError(None, f"the arena's authors' service at {self.address} cannot be reached now "
                                  f"({code.name}: {details}); try again later, or tell the arena's operator")


def _stream(header: pb.SubmitHeader, data: IO[bytes]) -> Iterator[pb.SubmitVersionRequest]:
    """The header, then the archive in chunks, read as they are sent."""
    yield pb.SubmitVersionRequest(header=header)
    data.seek(0)
    while chunk := data.read(CHUNK):
        yield pb.SubmitVersionRequest(chunk=chunk)


def _try_stream(header: pb.TryHeader, data: IO[bytes]) -> Iterator[pb.TryVersionRequest]:
    """A try's header, then the archive in chunks (as `_stream`)."""
    yield pb.TryVersionRequest(header=header)
    for part in _stream(header.submit, data):
        if part.HasField("chunk"):
            yield pb.TryVersionRequest(chunk=part.chunk)
