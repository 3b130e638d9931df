"""The host service's one error table (HOST_ERRORS, arena/gateway/host_calls.py): an arena-side
error of a runner's call reaches the runner as the same status on every leg."""

from __future__ import annotations

import pytest

from arena.gateway.core import Gateway, GatewayStopping
from arena.gateway.server import GatewayThread
from arena.launch.sandbox import SandboxUnavailable
from arena.link.client import LEGS, GatewayClient, GatewayError
from arena.v1 import bot_pb2 as pb
from tests.arena.gateway_fixtures import *  # noqa: F403


@pytest.mark.parametrize("leg", LEGS)
@pytest.mark.parametrize(("error", "status"), [(SandboxUnavailable, "FAILED_PRECONDITION"),
                                               (GatewayStopping, "UNAVAILABLE")])
def test_an_arena_side_error_becomes_its_status_on_every_leg(
        gateway: GatewayThread, monkeypatch: pytest.MonkeyPatch, leg: str, error: type[Exception], status: str) -> None:
    async def failing(self: Gateway, request: object) -> None:
        raise error("the arena cannot play this")

    monkeypatch.setattr(Gateway, "decide", failing)
    with GatewayClient(gateway.address, key=HOST_KEY, leg=leg) as runner:  # noqa: F405
        with pytest.raises(GatewayError, match=f"{status}: the arena cannot play this") as caught:
            runner.decide("anybot", pb.DecisionRequest(), 100)
    assert caught.value.gone is (status == "UNAVAILABLE")  # the match is played again later, or aborted


@pytest.mark.parametrize("leg", LEGS)
def test_any_other_error_is_the_gateway_s_bug(gateway: GatewayThread, monkeypatch: pytest.MonkeyPatch,
                                              leg: str) -> None:
    async def failing(self: Gateway, request: object) -> None:
        raise KeyError("a bug")

    monkeypatch.setattr(Gateway, "decide", failing)
    with GatewayClient(gateway.address, key=HOST_KEY, leg=leg) as runner:  # noqa: F405
        with pytest.raises(GatewayError) as caught:
            runner.decide("anybot", pb.DecisionRequest(), 100)
    assert "INTERNAL" in str(caught.value) or "UNKNOWN" in str(caught.value)
    assert not caught.value.gone
