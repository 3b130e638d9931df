"""Who may open a bot stream: the Bearer header, rotated tokens, disabled and removed bots."""

from __future__ import annotations

import queue
import time
from collections.abc import Iterator

import grpc
import pytest

from arena.cli import main
from arena.gateway.server import GatewayThread
from arena.store import Store
from arena.v1 import bot_pb2 as pb
from tests.arena.gateway_fixtures import *  # noqa: F403


class Stream:
    """A bot stream opened with the given metadata; the test reads what the arena sends."""

    def __init__(self, address: str, metadata: tuple[tuple[str, str], ...]) -> None:
        self.channel = grpc.insecure_channel(address)
        self.outbox: queue.Queue[bytes | None] = queue.Queue()
        play = self.channel.stream_stream("/arena.v1.BotGateway/Play", request_serializer=None,
                                          response_deserializer=pb.ArenaMessage.FromString)
        self.responses: Iterator[pb.ArenaMessage] = play(iter(self.outbox.get, None), metadata=metadata)

    @classmethod
    def bearer(cls, address: str, token: str) -> Stream:
        return cls(address, (("authorization", f"Bearer {token}"),))

    def next(self) -> pb.ArenaMessage:
        return next(self.responses)

    def refusal(self) -> grpc.RpcError:
        """The error that ends the stream (after any messages before it)."""
        with pytest.raises(grpc.RpcError) as caught:
            while True:
                self.next()
        return caught.value

    def close(self) -> None:
        self.outbox.put(None)
        self.channel.close()


@pytest.mark.parametrize("value", ["{token}", "Token {token}", "bearer:{token}", "Bearer", "Basic dXNlcg=="])
def test_a_token_without_the_bearer_scheme_says_what_header_is_expected(gateway: GatewayThread, store: Store,
                                                                        value: str) -> None:
    token = store.register_bot("schemeless")
    stream = Stream(gateway.address, (("authorization", value.format(token=token)),))
    error = stream.refusal()
    assert error.code() is grpc.StatusCode.UNAUTHENTICATED
    assert "the 'authorization' header must be 'Bearer <token>'" in error.details(), error.details()
    assert token not in error.details(), "the refusal never echoes what was sent"
    stream.close()


def test_the_bearer_scheme_is_case_insensitive_and_spaces_around_are_ignored(gateway: GatewayThread,
                                                                             store: Store) -> None:
    token = store.register_bot("spacey")
    stream = Stream(gateway.address, (("authorization", f"  bEaReR   {token} "),))
    assert stream.next().welcome.bot_name == "spacey"
    stream.close()
