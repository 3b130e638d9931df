"""What the one-hop path's lighter machinery promises (arena/node/hop.py, loop.py's `Answer`):
the bot gets the same DecisionRequest both ways, the runner's request is left as it was, a bot
that stalls is timed out the same, and a thread waiting while another drives the loop still gets
its answer. The bot here is answered in-process (a session on the host's gateway drained by a
function), so what the bot receives can be compared byte for byte; the same path with real
bots in their sandboxes is test_one_hop.py's differential."""

from __future__ import annotations

import asyncio
import concurrent.futures
import gc
import threading
import time
from collections.abc import Callable, Iterator

import pytest

from arena.node.hop import Deadlines
from arena.node.host import NodeHost
from arena.node.loop import Answer, SharedLoop
from arena.v1 import bot_pb2 as pb

BOT = "inproc@1"


class InProcessBot:
    """A session for BOT on the host's gateway; it records every DecisionRequest and answers its
    first legal action, unless `stalled`."""

    def __init__(self, host: NodeHost) -> None:
        self.host = host
        self.received: list[pb.DecisionRequest] = []
        self.stalled = False
        self.pause_s = 0.0  # a garbage collection this long on the host before each answer
        host.call(self._connect())

    async def _connect(self) -> None:
        assert self.host.gateway is not None
        session = await self.host.gateway.connect(BOT, "in-process")
        self.session = session
        loop = asyncio.get_running_loop()

        async def write(message: pb.ArenaMessage) -> None:
            if message.WhichOneof("kind") != "decision":
                return
            self.received.append(pb.DecisionRequest.FromString(message.decision.SerializeToString()))
            if self.pause_s:
                collection_taking(self.pause_s)
            if not self.stalled:
                asked = message.decision
                action = pb.Action(request_id=asked.request_id, action_id=asked.legal_actions[0].id)
                loop.call_soon(session.receive, pb.BotMessage(action=action).SerializeToString())

        loop.create_task(session.drain(write))


def collection_taking(seconds: float) -> None:
    """A garbage collection that stands still `seconds` (a callback sleeping in it), as a full
    collection of a large heap stands the process still."""
    def sleep(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            time.sleep(seconds)

    gc.callbacks.append(sleep)
    try:
        gc.collect()
    finally:
        gc.callbacks.remove(sleep)


@pytest.fixture
def bot() -> Iterator[InProcessBot]:
    host = NodeHost().start()
    try:
        yield InProcessBot(host)
    finally:
        host.stop()


def request(time_left_ms: int = 7_000, decision_ms: int = 1_000) -> pb.DecisionRequest:
    return pb.DecisionRequest(match_id="m", seat=1, game_id="toy", ruleset="r", step=3, observation_json='{"a": 1}',
                              legal_actions=[pb.LegalAction(id=7, label="seven"), pb.LegalAction(id=8, label="eight")],
                              time_left_ms=time_left_ms, decision_ms=decision_ms, bank_ms=time_left_ms - decision_ms)


@pytest.mark.parametrize("times", [(7_000, 1_000), (1_000, 1_000), (0, 0)])
def test_the_bot_gets_the_same_request_both_ways_and_the_runners_request_is_left_as_it_was(
    bot: InProcessBot, times: tuple[int, int],
) -> None:
    asked = request(*times)
    before = asked.SerializeToString()
    replies = [bot.host.decide(BOT, asked, 5000), bot.host.decide_as_gateway(BOT, asked, 5000)]
    assert [(r.fault, r.action_id) for r in replies] == [(pb.TERMINATION_NORMAL, 7)] * 2
    assert asked.SerializeToString() == before, "the runner's request is not numbered in place"
    one_hop, gateways = bot.received
    assert (one_hop.request_id, gateways.request_id) == (1, 2), "one numbering for both paths"
    one_hop.request_id = gateways.request_id = 0
    assert one_hop == gateways


def test_a_stalled_bot_is_timed_out_the_same_both_ways_and_its_decision_forgotten(bot: InProcessBot) -> None:
    bot.stalled = True
    replies = [bot.host.decide(BOT, request(), 50), bot.host.decide_as_gateway(BOT, request(), 50)]
    assert [(r.fault, r.reason) for r in replies] == [(pb.TERMINATION_TIMEOUT, "no answer within 50 ms")] * 2
    assert all(r.elapsed_ms >= 50 for r in replies), [r.elapsed_ms for r in replies]
    bot.stalled = False
    assert bot.host.decide(BOT, request(), 5000).action_id == 7  # (its turns of the loop ran the forgetting)
    assert bot.session.pending == {} and bot.session.requests == {}


def test_a_late_answer_to_a_timed_out_decision_is_a_notice_not_an_answer(bot: InProcessBot) -> None:
    bot.stalled = True
    assert bot.host.decide(BOT, request(), 30).fault == pb.TERMINATION_TIMEOUT
    late = pb.BotMessage(action=pb.Action(request_id=bot.received[-1].request_id, action_id=7)).SerializeToString()
    assert bot.host.call(_receive(bot, late)) is False, "no decision waits for it any more"


async def _receive(bot: InProcessBot, data: bytes) -> bool:
    return bot.session.receive(data)


def test_a_shorter_deadline_after_answered_longer_ones_still_times_out_at_its_own(bot: InProcessBot) -> None:
    """The one deadline timer is left armed at the first long decision's deadline (a minute on);
    a later decision due sooner arms it earlier (else the runner would wait out its own margin)."""
    assert [bot.host.decide(BOT, request(), 60_000).action_id for _ in range(3)] == [7] * 3
    bot.stalled = True
    reply = bot.host.decide(BOT, request(), 50)
    assert (reply.fault, reply.reason) == (pb.TERMINATION_TIMEOUT, "no answer within 50 ms")
    assert reply.elapsed_ms >= 50


# -- Deadlines, one timer for the decisions in flight ---------------------------------------------

class Asked:
    """A stand-in for a decision in flight: it notes when (on the loop's clock) it expired."""

    def __init__(self, loop: asyncio.AbstractEventLoop, expired: list[tuple[str, float]], name: str) -> None:
        self.loop, self.expired, self.name = loop, expired, name

    def expire(self) -> None:
        self.expired.append((self.name, self.loop.time()))


def test_one_timer_expires_each_decision_in_flight_at_its_deadline_never_before_and_once() -> None:
    loop = asyncio.new_event_loop()
    deadlines = Deadlines(loop)
    expired: list[tuple[str, float]] = []
    now = loop.time()
    due = {"slow": now + 0.2, "answered": now + 0.05, "quick": now + 0.1}
    asked = {name: Asked(loop, expired, name) for name in due}
    for name, when in due.items():
        deadlines.add(asked[name], when)  # type: ignore[arg-type]
    deadlines.discard(asked["answered"])  # type: ignore[arg-type]
    try:
        loop.run_until_complete(asyncio.sleep(0.4))
    finally:
        loop.close()
    assert [name for name, _ in expired] == ["quick", "slow"], "an answered decision never expires; each once"
    assert all(at >= due[name] for name, at in expired), (expired, due)
    assert deadlines.due == {}


def test_decisions_that_follow_each_other_arm_the_timer_once() -> None:
    """A match's decisions, each answered before the next is asked with the same deadline: the
    timer armed for the first is left for the next ones (no timer set and cancelled a decision)."""
    loop = asyncio.new_event_loop()
    armed: list[float] = []
    call_at = loop.call_at

    def counted_call_at(when: float, callback: Callable[..., object], *args: object) -> asyncio.TimerHandle:
        armed.append(when)
        return call_at(when, callback, *args)

    loop.call_at = counted_call_at  # type: ignore[method-assign]
    deadlines = Deadlines(loop)
    try:
        for number in range(1000):
            ask = Asked(loop, [], str(number))
            deadlines.add(ask, loop.time() + 5.0)  # type: ignore[arg-type]
            deadlines.discard(ask)  # type: ignore[arg-type]
    finally:
        loop.close()
    assert len(armed) == 1 and deadlines.due == {}


# -- Answer, the waiter of one decision -----------------------------------------------------------

def test_an_answer_is_set_once_and_gives_its_result_its_exception_or_a_timeout() -> None:
    answer: Answer[int] = Answer()
    with pytest.raises(concurrent.futures.TimeoutError):
        answer.result(0.01)
    answer.set_result(4)
    assert answer.done() and answer.result(0) == 4
    with pytest.raises(concurrent.futures.InvalidStateError):
        answer.set_exception(ValueError("twice"))
    failed: Answer[int] = Answer()
    threading.Timer(0.01, failed.set_exception, (ValueError("no"),)).start()
    with pytest.raises(ValueError, match="no"):
        failed.result(10)


@pytest.mark.parametrize("first_set_first", [True, False])
def test_a_thread_waiting_on_an_answer_while_another_drives_is_woken_in_either_order(first_set_first: bool) -> None:
    shared = SharedLoop()
    shared.start()
    first: Answer[str] = Answer()
    second: Answer[str] = Answer()
    order = (first, second) if first_set_first else (second, first)

    def set_both() -> None:
        shared.loop.call_later(0.05, order[0].set_result, "a")
        shared.loop.call_later(0.1, order[1].set_result, "b")

    try:
        with concurrent.futures.ThreadPoolExecutor(2) as pool:
            waiting_first = pool.submit(shared.wait, first, 10, set_both)
            waiting_second = pool.submit(shared.wait, second, 10)
            got = (waiting_first.result(15), waiting_second.result(15))
        assert got == (("a", "b") if first_set_first else ("b", "a"))
    finally:
        shared.close()


def test_a_collector_pause_inside_a_decision_is_not_charged_to_the_bot_either_way(bot: InProcessBot) -> None:
    bot.pause_s = 0.2
    for decide in (bot.host.decide, bot.host.decide_as_gateway):
        started = time.perf_counter()
        reply = decide(BOT, request(), 5000)
        wall_ms = (time.perf_counter() - started) * 1000
        assert (reply.fault, reply.action_id) == (pb.TERMINATION_NORMAL, 7)
        assert wall_ms >= 200, "the collection stood the decision still"
        assert reply.elapsed_ms <= wall_ms - 200 + 0.001, "charged without the collector's pause"
        assert reply.elapsed_ms >= 0
