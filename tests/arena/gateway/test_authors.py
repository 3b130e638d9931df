"""The authors' service on a real gateway on 127.0.0.1: authors act only on their own bots, remote
archives pass the local checks with nothing left behind, limits hold and reset, wrong keys are
slowed down per peer, and the store is never called on the gateway's event loop."""

from __future__ import annotations

import io
import os
import tarfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
import pytest
from sqlalchemy import text

from arena.gateway.authoring import AuthorConfig
from arena.gateway.server import GatewayThread
from arena.store import Store
from arena.v1 import authors_pb2 as pb
from arena.v1 import authors_pb2_grpc
from tests.arena import test_submissions as local
from tests.arena.gateway_fixtures import HOST_KEY

LIMITS = dict(max_bots=3, submissions_per_hour=3, max_archive_bytes=256 * 1024)
DENIED, EXHAUSTED = grpc.StatusCode.PERMISSION_DENIED, grpc.StatusCode.RESOURCE_EXHAUSTED


class Clock:
    """A clock the test moves instead of sleeping."""

    def __init__(self) -> None:
        self.now = time.time()

    def __call__(self) -> float:
        return self.now


@dataclass
class Arena:
    store: Store
    address: str
    root: Path
    clock: Clock
    keys: dict[str, str]
    channel: grpc.Channel

    def call(self, who: str, method: str, request: Any, key: str | None = None) -> Any:
        stub = authors_pb2_grpc.AuthorsStub(self.channel)
        metadata = (("authorization", f"Bearer {key or self.keys[who]}"),)
        return getattr(stub, method)(request, metadata=metadata, timeout=30)

    def refused(self, who: str, method: str, request: Any, key: str | None = None) -> grpc.RpcError:
        with pytest.raises(grpc.RpcError) as refused:
            self.call(who, method, request, key)
        assert "\n" not in refused.value.details()
        return refused.value

    def submit(self, who: str, bot: str, archive: bytes, archive_format: str = "tar.gz") -> Any:
        return self.call(who, "SubmitVersion", stream(bot, archive, archive_format))

    def contents(self) -> list[Path]:
        """Everything in the submissions folder (none before the first upload)."""
        return sorted(self.root.iterdir()) if self.root.exists() else []

    def leftovers(self) -> list[str]:
        """What is in the submissions folder besides stored trees (named by their 64-hex hash)."""
        return sorted(p.name for p in self.root.iterdir() if len(p.name) != 64) if self.root.exists() else []


def stream(bot: str, archive: bytes, archive_format: str = "tar.gz", chunk: int = 64 * 1024,
           size: int | None = None) -> Iterator[Any]:
    header = pb.SubmitHeader(bot=bot, command="python3 bot.py", archive_format=archive_format,
                             size=len(archive) if size is None else size)
    yield pb.SubmitVersionRequest(header=header)
    for start in range(0, len(archive), chunk):
        yield pb.SubmitVersionRequest(chunk=archive[start:start + chunk])


def tar_bytes(files: dict[str, bytes]) -> bytes:
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz") as archive:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return out.getvalue()


BOT = tar_bytes({"bot.py": b"print('hi')\n"})


@pytest.fixture
def arena(tmp_path: Path) -> Iterator[Arena]:
    store = Store(f"sqlite:///{tmp_path / 'arena.db'}")
    keys = {name: store.add_author(name) for name in ("alice", "mallory")}
    clock, root = Clock(), tmp_path / "submissions"
    config = AuthorConfig(**LIMITS, submissions_root=root, unpacked=local.SMALL, clock=clock)
    with GatewayThread(store, host_key=HOST_KEY, author_config=config) as thread, \
            grpc.insecure_channel(thread.address) as channel:
        yield Arena(store, thread.address, root, clock, keys, channel)


def dump(store: Store) -> list[Any]:
    """Every row an author's call could change."""
    with store.engine.connect() as connection:
        return [list(connection.execute(text(f"SELECT * FROM {table} ORDER BY id")))
                for table in ("author", "bot", "submission")]


def test_every_call_on_another_authors_bot_is_permission_denied_and_changes_nothing(
        arena: Arena, monkeypatch: pytest.MonkeyPatch) -> None:
    reply = arena.submit("alice", "alpha", BOT)
    assert reply.version.number == 1 and reply.token
    arena.store.register_bot("house")  # the operator's
    read: list[tuple[int, str]] = []
    monkeypatch.setattr(arena.store, "bot_logs", lambda match_id, bot: read.append((match_id, bot)) or [])
    before, files = dump(arena.store), arena.contents()
    for bot in ("alpha", "house"):
        calls = [("RotateToken", pb.RotateTokenRequest(bot=bot)),
                 ("SetBotState", pb.SetBotStateRequest(bot=bot, disabled=True)),
                 ("SetBotState", pb.SetBotStateRequest(bot=bot, disabled=False)),
                 ("ReadLog", pb.ReadLogRequest(bot=bot, match_id=1)),
                 ("ListBots", pb.ListBotsRequest(bot=bot)),
                 ("SubmitVersion", stream(bot, BOT))]
        for method, request in calls:
            refused = arena.refused("mallory", method, request)
            assert refused.code() == DENIED, (method, bot, refused.details())
            assert f"bot {bot!r} is not yours" in refused.details()
    assert dump(arena.store) == before and arena.contents() == files and read == []
    assert arena.call("mallory", "ListBots", pb.ListBotsRequest()).bots == [], "mallory sees only her own bots"
    assert [b.name for b in arena.call("alice", "ListBots", pb.ListBotsRequest()).bots] == ["alpha"]
    assert arena.call("alice", "ReadLog", pb.ReadLogRequest(bot="alpha", match_id=7)).logs == []
    assert read == [(7, "alpha")], "the owner's ReadLog reads Store.bot_logs(match_id, bot_name)"


def test_a_missing_unknown_or_disabled_key_is_unauthenticated(arena: Arena) -> None:
    for key, says in [("arena_author_wrong", "unknown author key"), ("", "missing or malformed author key")]:
        refused = arena.refused("alice", "ListBots", pb.ListBotsRequest(), key=key or " ")
        assert refused.code() == grpc.StatusCode.UNAUTHENTICATED and says in refused.details()
    arena.store.set_author_disabled("alice", True)
    refused = arena.refused("alice", "RegisterBot", pb.RegisterBotRequest(bot="alpha"))
    assert refused.code() == grpc.StatusCode.UNAUTHENTICATED and "'alice' is disabled" in refused.details()
    assert arena.store.bot("alpha") is None


def test_store_calls_run_off_the_gateways_event_loop(arena: Arena, monkeypatch: pytest.MonkeyPatch) -> None:
    threads: list[str] = []
    lookup = arena.store.author_for_key
    monkeypatch.setattr(arena.store, "author_for_key",
                        lambda key: threads.append(threading.current_thread().name) or lookup(key))
    arena.call("alice", "RegisterBot", pb.RegisterBotRequest(bot="alpha"))
    arena.submit("alice", "alpha", BOT)
    assert len(threads) == 2 and "arena-gateway" not in threads, threads


HOSTILE_TARS = local.test_a_hostile_tar_is_refused_and_leaves_nothing.pytestmark[0].args[1]


@pytest.mark.parametrize("members, message", HOSTILE_TARS)
def test_a_hostile_tar_streamed_remotely_is_refused_as_locally_and_leaves_nothing(
        arena: Arena, tmp_path: Path, members: list[Any], message: str) -> None:
    archive = local.make_tar(tmp_path / "bot.tar.gz", [(local.entry("bot.js"), b"ok"), *members])
    before = dump(arena.store)
    refused = arena.refused("alice", "SubmitVersion", stream("alpha", archive.read_bytes()))
    assert refused.code() == grpc.StatusCode.INVALID_ARGUMENT and message in refused.details()
    assert str(arena.root) not in refused.details(), "the gateway's paths stay its own"
    assert dump(arena.store) == before and arena.store.bot("alpha") is None
    assert arena.contents() == []


@pytest.mark.parametrize("name, files, message", [
    ("bomb.zip", {"zeros.bin": bytes(10 * 1024 * 1024)}, "unpacks to more than 0.0625 MiB"),
    ("many.zip", {f"f{i}": b"" for i in range(51)}, "more than 50 files"),
    ("evil.zip", {"bot.js": b"ok", "../evil.js": b"x"}, "climbs out"),
    ("broken.zip", None, "is not a readable archive"),
])
def test_a_hostile_or_malformed_zip_streamed_remotely_is_refused_and_leaves_nothing(
        arena: Arena, tmp_path: Path, name: str, files: dict[str, bytes] | None, message: str) -> None:
    archive = local.make_zip(tmp_path / name, files).read_bytes() if files is not None else b"not a zip"
    before = dump(arena.store)
    refused = arena.refused("alice", "SubmitVersion", stream("alpha", archive, "zip"))
    assert refused.code() == grpc.StatusCode.INVALID_ARGUMENT and message in refused.details()
    assert dump(arena.store) == before and arena.contents() == []


@pytest.mark.parametrize("declared", ["true", "small"])
def test_an_oversize_archive_is_refused_at_the_limit_and_leaves_nothing(arena: Arena, declared: str) -> None:
    """Declared past the limit: refused before any chunk is read; declared small and sent large
    anyway: refused at the declared size, while the bytes arrive."""
    huge = os.urandom(LIMITS["max_archive_bytes"] * 4)  # incompressible: no way around the limit
    before = dump(arena.store)
    refused = arena.refused("alice", "SubmitVersion", stream("alpha", huge, size=None if declared == "true" else 1000))
    if declared == "true":
        assert refused.code() == EXHAUSTED and "larger than 0.25 MiB" in refused.details()
        assert "--author-max-archive-mb" in refused.details()
    else:
        assert refused.code() == grpc.StatusCode.INVALID_ARGUMENT and "more than the 1000 bytes" in refused.details()
    assert dump(arena.store) == before and arena.contents() == []


def test_a_stream_that_ends_short_of_its_declared_size_is_refused_and_leaves_nothing(arena: Arena) -> None:
    before = dump(arena.store)
    refused = arena.refused("alice", "SubmitVersion", stream("alpha", BOT[: len(BOT) // 2], size=len(BOT)))
    assert refused.code() == grpc.StatusCode.INVALID_ARGUMENT and "(it was cut)" in refused.details()
    assert dump(arena.store) == before and arena.contents() == []


def wait_for(condition: Any, what: str, timeout_s: float = 15.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        assert time.monotonic() < deadline, f"gave up waiting: {what}"
        time.sleep(0.02)


def test_a_stream_cut_halfway_leaves_nothing(arena: Arena) -> None:
    release = threading.Event()

    def half() -> Iterator[Any]:
        yield from stream("alpha", BOT[: len(BOT) // 2], chunk=16, size=len(BOT))
        release.wait(30)  # the second half never comes: the call is cancelled first

    before = dump(arena.store)
    stub = authors_pb2_grpc.AuthorsStub(arena.channel)
    call = stub.SubmitVersion.future(half(), metadata=(("authorization", f"Bearer {arena.keys['alice']}"),))
    wait_for(lambda: arena.leftovers() != [], "the upload's temporary file")
    (upload,) = arena.contents()
    assert upload.name.startswith(".upload-") and upload.stat().st_mode & 0o777 == 0o600
    try:
        call.cancel()
        wait_for(lambda: arena.contents() == [], "the cut upload to be removed")
    finally:
        release.set()  # only now: a stream that ended would be unpacked (and refused) instead
    assert dump(arena.store) == before and arena.store.bot("alpha") is None


def test_bots_and_submissions_per_hour_are_limited_and_the_hour_resets(arena: Arena) -> None:
    for n in range(LIMITS["max_bots"]):
        arena.call("alice", "RegisterBot", pb.RegisterBotRequest(bot=f"b{n}"))
    refused = arena.refused("alice", "RegisterBot", pb.RegisterBotRequest(bot="one-more"))
    assert refused.code() == EXHAUSTED and "at most 3 per author (--author-max-bots)" in refused.details()
    assert "does not reset by itself" in refused.details()
    refused = arena.refused("alice", "SubmitVersion", stream("one-more", BOT))
    assert refused.code() == EXHAUSTED and arena.store.bot("one-more") is None
    for _ in range(LIMITS["submissions_per_hour"]):
        arena.submit("alice", "b0", BOT)
    before = dump(arena.store)
    refused = arena.refused("alice", "SubmitVersion", stream("b0", BOT))
    assert refused.code() == EXHAUSTED and "3 submissions per hour per author" in refused.details()
    assert "resets at" in refused.details() and "in about 60 min" in refused.details()
    assert dump(arena.store) == before and arena.leftovers() == []
    assert arena.submit("mallory", "m0", BOT).version.number == 1, "the limit is per author"
    arena.clock.now += 3601
    assert arena.submit("alice", "b0", BOT).version.number == 4


def test_a_key_guessed_wrong_100_times_from_one_peer_is_slowed_down(arena: Arena) -> None:
    codes = [arena.refused("alice", "ListBots", pb.ListBotsRequest(), key=f"arena_author_guess{n}").code()
             for n in range(100)]
    assert codes[:10] == [grpc.StatusCode.UNAUTHENTICATED] * 10
    assert codes[10:] == [EXHAUSTED] * 90, "after 10 failures a minute the peer is refused, key unread"
    refused = arena.refused("alice", "ListBots", pb.ListBotsRequest(), key="arena_author_guess")
    assert refused.code() == EXHAUSTED
    assert "10 failed keys for keys that name no author" in refused.details() and "try again in" in refused.details()
    arena.clock.now += 61
    assert arena.refused("alice", "ListBots", pb.ListBotsRequest(), key="arena_author_guess").code() != EXHAUSTED


def test_a_strangers_guesses_at_one_author_lock_out_no_other_author_at_that_address(
        arena: Arena, caplog: pytest.LogCaptureFixture) -> None:
    """Keys name their author (`arena_author_NAME:...`): failures count per address and claimed name."""
    assert arena.keys["alice"].startswith("arena_author_alice:")
    caplog.set_level("INFO", logger="arena.gateway.authors")
    guesses = [arena.refused("alice", "ListBots", pb.ListBotsRequest(), key=f"arena_author_alice:guess{n}").code()
               for n in range(12)]
    assert guesses == [grpc.StatusCode.UNAUTHENTICATED] * 10 + [EXHAUSTED] * 2
    refused = arena.refused("alice", "ListBots", pb.ListBotsRequest())  # her own key, from the guesser's address
    assert refused.code() == EXHAUSTED and "10 failed keys for author 'alice' from your address" in refused.details()
    assert arena.call("mallory", "ListBots", pb.ListBotsRequest()).bots == [], "another author at the address"
    nameless = arena.refused("alice", "ListBots", pb.ListBotsRequest(), key="arena_author_guess")
    assert nameless.code() == grpc.StatusCode.UNAUTHENTICATED, "guesses at alice do not count against others"
    logged = "\n".join(record.getMessage() for record in caplog.records)
    assert "for author 'alice' refused: unknown author key" in logged
    assert "for author 'alice' refused: too many failed keys" in logged
    assert "guess" not in logged and arena.keys["alice"] not in logged, "the log names the author, never a key"
    arena.clock.now += 61
    assert arena.call("alice", "ListBots", pb.ListBotsRequest()).bots == []


def test_brute_force_on_one_author_from_many_addresses_stays_bounded() -> None:
    """The pairs (address, name) are capped one by one, and the name over all addresses together."""
    from arena.gateway.key_failures import NAME_FACTOR, KeyFailures

    clock = Clock()
    failures = KeyFailures(10, 60.0, clock)
    tried = 0
    for address in (f"ipv4:10.0.0.{n}" for n in range(50)):
        while failures.refused_for(address, "alice") == 0.0:
            failures.failed(address, "alice")
            tried += 1
    assert tried == NAME_FACTOR * 10, "every address together: 100 guesses at alice a minute, not 10 per address"
    assert failures.refused_for("ipv4:10.0.0.99", "alice") > 0 and "from all addresses" in failures.why(
        "ipv4:10.0.0.99", "alice")
    assert failures.refused_for("ipv4:10.0.0.1", "bob") == 0.0 and failures.refused_for("ipv4:10.0.0.1", None) == 0.0
    clock.now += 61
    assert failures.refused_for("ipv4:10.0.0.1", "alice") == 0.0
