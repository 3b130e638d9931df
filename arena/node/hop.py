"""One decision of a launched bot, from the runner's thread straight onto the bot's stream.

The gateway's own path (`Gateway.decide`, a coroutine) costs a launched seat on its node a task
and several turns of the host's event loop per decision: the runner's call becomes a task, the
request waits in the session's outbox for its drain task, the answer resolves an asyncio future
that wakes the decision's task, whose result wakes the runner's thread. `DirectAsk` does the
same bookkeeping with no task: the runner's thread, which runs the loop while it waits
(loop.py), queues the request itself before the loop's first turn; the decision's waiting slot
in the session (`Session.pending`) is the `Answer` that thread waits on, so the bot's Action,
read in the same thread, resolves it at once; its deadline is kept by `Deadlines`, one timer
on the loop for every decision in flight (not a timer set and cancelled each decision). The
request is copied once, into the message the bot gets (the gateway's path copies it
three times: into the host call, the numbered request and the message).

What a decision promises is the gateway's, unchanged: the same request ids and log marks, the
same outbox (and its limits), the same reconnect grace (a decision waiting on a dropped stream is
resent by the redial, `Session.resume`), the deadline measured from when the loop sends the
request, and the same faults with the same reasons (`Gateway._late`, the session's `BotFault`s).
A bot that is away when the decision comes (redialling, or never connected) takes the gateway's
own path, which waits for it within the deadline.
"""

from __future__ import annotations

import asyncio
import time

from arena.gateway import pauses
from arena.gateway.core import STOPPING, Gateway, GatewayStopping
from arena.gateway.sessions import BotFault, Session
from arena.node.loop import Answer, SharedLoop
from arena.v1 import bot_pb2 as pb
from arena.v1 import host_pb2


class Deadlines:
    """The deadlines of the decisions in flight on one loop, kept by one timer.

    A timer a decision (`call_later`, cancelled when the answer comes, 0.2 ms later) cost each
    decision a TimerHandle made, pushed on the loop's heap and cancelled (about 2 µs), and left the
    heap full of cancelled timers. Here the timer is set only when nothing is armed or a decision
    is due before it; it is left armed when the decision is answered. When it fires, every
    decision due by then expires, and it is armed again at the earliest one still in flight (in a
    match, decisions follow each other with the same deadline: it fires about once a deadline, and
    finds nothing due). So a decision expires when the loop's clock reaches its deadline, as with
    a timer of its own, never before.
    """

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.due: dict[DirectAsk, float] = {}  # the decision -> its deadline on the loop's clock
        self._timer: asyncio.TimerHandle | None = None

    def add(self, ask: DirectAsk, due: float) -> None:
        self.due[ask] = due
        if self._timer is None or self._timer.when() > due:
            if self._timer is not None:
                self._timer.cancel()
            self._timer = self.loop.call_at(due, self._fire)

    def discard(self, ask: DirectAsk) -> None:
        self.due.pop(ask, None)

    def _fire(self) -> None:
        self._timer = None
        now = self.loop.time()
        for ask in [ask for ask, due in self.due.items() if due <= now]:
            del self.due[ask]
            ask.expire()
        if self.due:  # (also one that the loop's clock put a hair after now: armed again, it fires at once)
            self._timer = self.loop.call_at(min(self.due.values()), self._fire)


class DirectAsk(Answer[int | None]):  # the action id (None: the gateway's path had it, `fallback`)
    """One decision in flight: made on the runner's thread, sent and resolved on the host's loop.

    `started` and `answered` are stamped on the loop (perf_counter, shared by the threads):
    the time between them is what the time control charges, as `Gateway.decide` measures it.
    """

    def __init__(self, gateway: Gateway, bot_name: str, request: pb.DecisionRequest, deadline_ms: int,
                 deadlines: Deadlines) -> None:
        super().__init__()
        self.deadlines = deadlines
        self.loop = deadlines.loop  # sent before the loop runs, by its driver: not asyncio.get_running_loop()
        self.gateway = gateway
        self.bot_name = bot_name
        self.request = request  # the runner's, left as it is: the bot gets a numbered copy
        self.deadline_ms = deadline_ms
        self.started = 0.0
        self.answered = 0.0
        self.paused_at_send = self.paused_at_answer = 0.0  # pauses.paused_s() then
        self.session: Session | None = None
        self.request_id = 0
        self.fallback: asyncio.Task[host_pb2.DecideReply] | None = None

    # -- on the host's loop -------------------------------------------------------------------

    def send(self) -> None:
        """`_send`; an error in it is the runner's (as `Gateway.decide`'s would be), not lost on the loop."""
        try:
            self._send()
        except Exception as error:  # noqa: BLE001 - handed to the runner's thread, which raises it
            if not self.done():
                self.set_exception(error)

    def _send(self) -> None:
        """Number the request, note it in the bot's session and its log, queue it, start its deadline.
        The request is copied once, into the message that carries it (`Gateway.decide` copies it
        into the host call, the numbered request and the message)."""
        gateway = self.gateway
        session = gateway.live(self.bot_name)
        if session is None or gateway.stopping:  # away, or stopping: the gateway's own path
            call = host_pb2.DecideRequest(bot_name=self.bot_name, request=self.request, deadline_ms=self.deadline_ms)
            self.fallback = self.loop.create_task(gateway.decide(call))
            self.fallback.add_done_callback(lambda _: self.set_result(None))
            return
        self.started, self.paused_at_send = time.perf_counter(), pauses.paused_s()
        message = pb.ArenaMessage()
        decision = message.decision
        gateway.numbered_into(decision, self.request, self.started)
        gateway.mark_decision(self.bot_name, self.request)
        self.session, self.request_id = session, decision.request_id
        session.pending[decision.request_id] = self  # type: ignore[assignment]  # the same three methods
        session.requests[decision.request_id] = (decision, time.monotonic())
        self.deadlines.add(self, self.loop.time() + self.deadline_ms / 1000)
        session.send(message)

    def expire(self) -> None:
        """Its deadline passed with no answer (`Deadlines`)."""
        if not self.done():
            self.set_exception(self.gateway._late(self.bot_name, self.deadline_ms))

    def _settle(self, result: int | None, exception: BaseException | None) -> None:
        """The decision is over: stamped, its deadline dropped, and the session forgets it (a fault
        next turn: the session may be failing its waiting decisions in a loop over them now)."""
        self.answered, self.paused_at_answer = time.perf_counter(), pauses.paused_s()
        self.deadlines.discard(self)
        super()._settle(result, exception)
        if self.session is None:
            return
        if exception is None:  # answered (`Session._answer` holds no loop over `pending`)
            self.session.forget(self.request_id)
        else:
            self.loop.call_soon(self.session.forget, self.request_id)

    # -- on the runner's thread -----------------------------------------------------------------

    def reply(self, loop: SharedLoop, timeout_s: float) -> host_pb2.DecideReply:
        """Send it, wait for the answer (or the fault), driving the loop meanwhile, and make it the
        reply `Gateway.decide` would give."""
        try:
            action = loop.wait(self, timeout_s, start=self.send, guard=False)  # `expire` is its guard
        except BotFault as fault:
            if self.gateway.stopping:
                raise GatewayStopping(STOPPING) from None
            return self._reply(fault=fault.fault, reason=fault.reason)
        if self.fallback is not None:
            return self.fallback.result()
        return self._reply(action_id=action, fault=pb.TERMINATION_NORMAL)

    def _reply(self, **fields: object) -> host_pb2.DecideReply:
        elapsed_ms = pauses.charged_ms(self.started, self.answered, self.paused_at_send, self.paused_at_answer)
        return host_pb2.DecideReply(elapsed_ms=elapsed_ms, **fields)  # type: ignore[arg-type]
