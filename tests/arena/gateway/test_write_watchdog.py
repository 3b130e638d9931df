"""A session's write limit is one watchdog per stream (Session.drain, `_watch`), not a timeout per
message: each write is still timed from its own start. These drive the watchdog's checks by hand
on a real event loop (no waiting on the machine's speed); the end-to-end drop of a bot that does
not read is in test_sessions.py."""

from __future__ import annotations

import asyncio

from arena.gateway.sessions import BotFault, Session, StreamLimits
from arena.v1 import bot_pb2 as pb

LIMIT_S = 30.0  # far beyond the test's run: only the checks made by hand can cut a write


async def writing_session() -> tuple[Session, asyncio.Task[None], asyncio.Event, list[str]]:
    """A session whose drain is stuck in the write of its first message (until `release` is set)."""
    session = Session("bot", "in-process", StreamLimits(write_timeout_s=LIMIT_S))
    release, written = asyncio.Event(), []

    async def write(message: pb.ArenaMessage) -> None:
        await release.wait()
        written.append(message.WhichOneof("kind"))

    drain = asyncio.get_running_loop().create_task(session.drain(write))
    session.send(pb.ArenaMessage(notice=pb.Notice(message="first")))
    while session._write_since is None:
        await asyncio.sleep(0)
    return session, drain, release, written


def test_a_write_under_way_for_less_than_the_limit_is_left_and_checked_again_at_its_own_due_time() -> None:
    async def scenario() -> None:
        session, drain, release, written = await writing_session()
        loop = asyncio.get_running_loop()
        session._write_since = loop.time() - LIMIT_S / 2  # under way for half the limit
        session._watch()
        assert session.ended is None and not drain.done()
        assert session._watchdog is not None  # checked again when this write's time is up
        assert abs(session._watchdog.when() - (session._write_since + LIMIT_S)) < 1e-6
        release.set()
        session.send(pb.ArenaMessage(notice=pb.Notice(message="second")))
        while len(written) < 2:
            await asyncio.sleep(0)
        assert session.ended is None, "writes that each end in time never end the session"
        session.end(BotFault(pb.TERMINATION_DISCONNECT, "done"))
        await drain

    asyncio.run(scenario())


def test_a_write_under_way_for_the_limit_ends_the_session_with_the_same_reason() -> None:
    async def scenario() -> None:
        session, drain, _, written = await writing_session()
        session._write_since = asyncio.get_running_loop().time() - LIMIT_S
        session._watch()
        await drain  # the write is cut, the drain ends with the session, not with an error
        assert written == []
        assert session.ended is not None and session.ended.reason == (
            f"the bot does not read its stream: a message waited {LIMIT_S:g} s to be sent; "
            "the arena closed the connection")

    asyncio.run(scenario())


def test_ending_the_session_cuts_a_stuck_write_at_once_and_an_outside_cancel_still_cancels() -> None:
    async def scenario() -> None:
        session, drain, _, _ = await writing_session()
        session.end(BotFault(pb.TERMINATION_DISCONNECT, "gone"))
        await drain
        assert session.ended is not None and session.ended.reason == "gone"

        other, drain, _, _ = await writing_session()
        drain.cancel()  # the stream's own end (gRPC cancels the call): not taken for a slow bot
        try:
            await drain
        except asyncio.CancelledError:
            pass
        assert drain.cancelled() and other.ended is None

    asyncio.run(scenario())
