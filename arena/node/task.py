"""Playing a match on a node: its submitted bots launched here, the bots that dial in at the gateway.

`play_on_node` is an executor's task (`RayExecutor(task=play_on_node)`, or `LocalExecutor`'s):
for a job with `launches` it gets each version's files into this node's cache (files.py, checked
against their hash), tells this process's `NodeHost` what they launch, and plays the match with
`NodeSeats`, which sends each registered seat's calls where its bot is — a launched version to the
host here, any other registered bot to the gateway (`job.gateway`) as before. A table may mix both.
"""

from __future__ import annotations

import atexit
import threading
from collections.abc import Collection
from functools import partial
from typing import Any

from arena.link.client import DEFAULT_ADDRESS, GatewayClient
from arena.match.executor import JobOutcome, MatchJob, bundle_bytes, node_name, play_job
from arena.node.files import FilesCache, FilesError
from arena.node.host import NodeHost
from arena.v1 import bot_pb2 as pb
from arena.v1 import host_pb2

_lock = threading.Lock()
_host: NodeHost | None = None
_cache: FilesCache | None = None


def this_node() -> NodeHost:
    """This process's node host, started on first use (and stopped when the process exits)."""
    global _host
    with _lock:
        if _host is None:
            _host = NodeHost().start()
            atexit.register(_host.stop)
        return _host


def stop_this_node() -> None:
    """Stop this process's node host and its bots, if it started one (before the interpreter
    shuts down: the launcher's last clean-up needs its thread pool)."""
    global _host
    with _lock:
        host, _host = _host, None
    if host is not None:
        host.stop()


def this_cache() -> FilesCache:
    """This node's files cache ($ARENA_NODE_CACHE, read when first needed)."""
    global _cache
    with _lock:
        if _cache is None:
            _cache = FilesCache()
        return _cache


def play_on_node(job: MatchJob) -> JobOutcome:
    """Play the job with its launched bots on this node (an executor's task)."""
    if not job.launches:
        return play_job(job)
    try:
        host = prepare(job)
    except FilesError as error:  # the arena's problem (a broken cache, a refused transfer): aborted, unrated
        return JobOutcome(job, None, f"FilesError: {error}", node=node_name())
    with NodeSeats(host, {launch.name for launch in job.launches}, job.gateway) as seats:
        return play_job(job, gateway=seats)


def executor_for(local: bool, *, ray_address: str | None = None, workers: int | None = None,
                 max_in_flight: int | None = None, live: bool = False) -> Any:
    """A LocalExecutor (`local`), else a RayExecutor (ray is imported only when needed): either
    plays a match's submitted bots where the match plays (`play_on_node`)."""
    if local:
        from arena.match.executor import LocalExecutor

        return LocalExecutor(task=play_on_node, live=live)
    from arena.match.executor import RayExecutor, check_address

    if ray_address:
        check_address(ray_address)
    return RayExecutor(address=ray_address, num_cpus=workers, max_in_flight=max_in_flight, live=live, task=play_on_node)


def prepare(job: MatchJob, host: NodeHost | None = None, cache: FilesCache | None = None) -> NodeHost:
    """The host, told where each launched version's checked files are on this node."""
    host = host or this_node()
    cache = cache or this_cache()
    for launch in job.launches:
        if launch.sha256 not in job.bundles:
            raise FilesError(f"the job carries no files for {launch.name} ({launch.sha256[:12]}...)")
        refused = cache.refused
        folder = cache.folder(launch.sha256, partial(bundle_bytes, job.bundles[launch.sha256]))
        if cache.refused != refused and launch.name in host.running():
            host.stop_bot(launch.name)  # it runs on files that were tampered with: start it again on the good ones
        host.bots.add(launch.name, launch.command, folder)
    return host


class NodeSeats:
    """What a match's connected seats call: the node host for launched versions, the gateway for the rest."""

    def __init__(self, host: NodeHost, launched: Collection[str], gateway: str | None) -> None:
        self.host = host
        self.launched = set(launched)
        self.address = gateway or DEFAULT_ADDRESS
        self._client: GatewayClient | None = None  # made when a seat first needs the gateway

    def _for(self, bot_name: str) -> NodeHost | GatewayClient:
        if bot_name in self.launched:
            return self.host
        if self._client is None:
            self._client = GatewayClient(self.address)
        return self._client

    def open_seat(self, bot_name: str, start: pb.MatchStart, connect_timeout_ms: int) -> host_pb2.SeatReply:
        return self._for(bot_name).open_seat(bot_name, start, connect_timeout_ms)

    def decide(self, bot_name: str, request: pb.DecisionRequest, deadline_ms: int) -> host_pb2.DecideReply:
        return self._for(bot_name).decide(bot_name, request, deadline_ms)

    def close_seat(self, bot_name: str, end: pb.MatchEnd) -> host_pb2.SeatReply | None:
        return self._for(bot_name).close_seat(bot_name, end)

    def __enter__(self) -> NodeSeats:
        return self

    def __exit__(self, *exc: object) -> None:
        if self._client is not None:
            self._client.close()
