"""Load: N connected bots and M matches in flight against one gateway; what one gateway holds.

    .venv/bin/python bench/load.py --bots 1000 --matches 200 --seconds 30 --think-ms 10 [--tls]

Everything on 127.0.0.1, each part in processes of its own so that the bots' and the runners' CPU
is not the gateway's:
- the gateway: `arena serve --port 0` on a temporary SQLite database where the N bots were
  registered first (Store.register_bot), over TLS with --tls (certificates made by openssl, the
  commands of docs/tls.md);
- the bots: --bot-processes processes of the Python kit, each holding its share of the N streams
  on one asyncio loop (arena_sdk.Connection); every decision is answered after --think-ms with an
  `async def decide` (asyncio.sleep: the loop goes on meanwhile);
- the runners: --runner-processes processes with M threads between them, each thread playing
  `run_match` after `run_match` through one shared GatewayClient (the host leg) between two bots
  of its own share, until --seconds have passed (the matches then in flight are played out).

Reported: connections held; decisions per second; decision latency at the runner (p50, p99,
p99.9, and those minus the think time) and at the gateway (DecideReply.elapsed_ms); the gateway's
CPU (/proc/PID/stat) and RSS (/proc/PID/status) with no bot, idle with N connected, and under
load; RSS growth per connection; arena-caused timeouts (a decision the bots answer after
--think-ms, far inside the deadline, so every timeout the runner sees is the arena's); matches
lost (planned minus finished). A JSON line per run and a markdown row for BENCHMARKS.md.
tests/arena/gateway/test_load.py runs a small load through `run_load`.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import selectors
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

KEY = "load-bench-key"
TIMEOUT = 2  # pb.TERMINATION_TIMEOUT, without importing the protos into the parent


@dataclass(frozen=True)
class Plan:
    """One load run: how many bots and matches, for how long, how the bots answer."""

    bots: int = 100
    matches: int = 20
    seconds: float = 10.0
    think_ms: float = 10.0
    tls: bool = False
    game: str = "gang_of_dice"
    bot_processes: int = 2
    runner_processes: int = 2
    idle_s: float = 2.0  # the gateway watched with every bot connected and no match

    def check(self) -> None:
        """Bad sizes are a one-line error saying what is valid."""
        if self.matches < 1 or self.bots < 2 * self.matches:
            raise SystemExit(f"--bots must be at least twice --matches (two seats a match, each bot in one "
                             f"match at a time), and --matches at least 1: "
                             f"got {self.bots} bots, {self.matches} matches")
        if min(self.bot_processes, self.runner_processes) < 1 or self.seconds <= 0 or self.think_ms < 0:
            raise SystemExit("--bot-processes and --runner-processes must be at least 1, --seconds above 0 "
                             "and --think-ms at least 0")


@dataclass
class GatewaySample:
    """The gateway process at one moment: CPU seconds used so far and resident memory."""

    at: float
    cpu_s: float
    rss_kb: int

    @classmethod
    def of(cls, pid: int) -> GatewaySample:
        stat = Path(f"/proc/{pid}/stat").read_text()
        fields = stat[stat.rindex(")") + 2:].split()  # after the command name, which may hold spaces
        ticks = int(fields[11]) + int(fields[12])  # utime + stime (fields 14 and 15 of proc(5))
        rss = next(int(line.split()[1]) for line in Path(f"/proc/{pid}/status").read_text().splitlines()
                   if line.startswith("VmRSS:"))
        return cls(time.monotonic(), ticks / os.sysconf("SC_CLK_TCK"), rss)


def cpu_percent(first: GatewaySample, last: GatewaySample) -> float:
    """The share of one core the gateway used between two samples."""
    return round(100 * (last.cpu_s - first.cpu_s) / max(last.at - first.at, 1e-9), 1)


def percentile(ordered: list[float], q: float) -> float:
    return round(ordered[min(len(ordered) - 1, int(q * len(ordered)))], 3) if ordered else float("nan")


def latency_summary(samples_ms: list[float], think_ms: float) -> dict[str, float]:
    """p50, p99, p99.9 of a decision, and each minus the think time (what the arena adds)."""
    ordered = sorted(samples_ms)
    summary = {f"p{name}_ms": percentile(ordered, q) for name, q in (("50", 0.5), ("99", 0.99), ("99.9", 0.999))}
    return {**summary, **{f"{key[:-3]}_above_think_ms": round(value - think_ms, 3) for key, value in summary.items()}}


# -- the bots' processes ---------------------------------------------------------------------------

def bots_process(spec: dict[str, Any]) -> None:
    """Hold one stream per token on one loop; say "ready" once every one was welcomed."""
    from arena_sdk import Bot, Connection, Decision
    from arena_sdk import tls as tls_settings

    think_s = spec["think_ms"] / 1000

    class Paced(Bot):
        async def decide(self, decision: Decision) -> int:
            await asyncio.sleep(think_s)
            return int(decision.legal_actions[0])

    welcomed = Welcomes(len(spec["tokens"]))
    logging.getLogger("arena.sdk").addHandler(welcomed)
    logging.getLogger("arena.sdk").setLevel(logging.INFO)
    tls = tls_settings.settings(spec["address"], bool(spec["ca"]), spec["ca"] or None)

    async def hold() -> None:
        connections = [Connection(spec["address"], token, Paced(), "load-bench", None, tls=tls)
                       for token in spec["tokens"]]
        await asyncio.gather(*(c.run_forever(True, 5.0) for c in connections))

    asyncio.run(hold())


class Welcomes(logging.Handler):
    """Counts the kit's "connected to" lines; prints "ready" on stdout when all `expected` came."""

    def __init__(self, expected: int) -> None:
        super().__init__()
        self.expected, self.seen = expected, 0

    def emit(self, record: logging.LogRecord) -> None:
        if record.getMessage().startswith("connected to "):
            self.seen += 1
            if self.seen == self.expected:
                print("ready", flush=True)


# -- the runners' processes ------------------------------------------------------------------------

@dataclass
class RunnerTally:
    """What one runner process saw: its decisions' times and faults, its matches."""

    at_runner_ms: list[float] = field(default_factory=list)
    at_gateway_ms: list[float] = field(default_factory=list)
    faults: dict[str, int] = field(default_factory=dict)
    planned: int = 0
    finished: int = 0
    problems: list[str] = field(default_factory=list)
    seconds: float = 0.0


def runner_process(spec: dict[str, Any]) -> None:
    """`spec["threads"]` threads playing matches until `spec["seconds"]`; the tally on stdout."""
    from arena.link.client import GatewayClient

    tally, lock = RunnerTally(), threading.Lock()
    client = GatewayClient(spec["address"], key=KEY, ca_file=spec["ca"] or None, tls=bool(spec["ca"]))
    timed = timed_client(client, tally, lock)
    names, per = spec["names"], len(spec["names"]) // spec["threads"]
    started = time.monotonic()
    stop_at = started + spec["seconds"]
    threads = [threading.Thread(target=play_matches,
                                args=(spec, names[i * per:(i + 1) * per], timed, tally, lock, stop_at))
               for i in range(spec["threads"])]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    tally.seconds = time.monotonic() - started
    client.close()
    print(json.dumps(asdict(tally)), flush=True)


def timed_client(client: Any, tally: RunnerTally, lock: threading.Lock) -> Any:
    """The client, its `decide` timed: the whole decision as the runner waits for it."""
    decide = client.decide

    def timed_decide(bot_name: str, request: Any, deadline_ms: int) -> Any:
        started = time.perf_counter()
        reply = decide(bot_name, request, deadline_ms)
        elapsed = (time.perf_counter() - started) * 1000
        with lock:
            tally.at_runner_ms.append(round(elapsed, 3))
            tally.at_gateway_ms.append(round(reply.elapsed_ms, 3))
            if reply.fault not in (0, 1):  # unspecified / normal
                tally.faults[str(reply.fault)] = tally.faults.get(str(reply.fault), 0) + 1
        return reply

    client.decide = timed_decide
    return client


def play_matches(spec: dict[str, Any], pool: list[str], client: Any, tally: RunnerTally, lock: threading.Lock,
                 stop_at: float) -> None:
    """Matches between two bots of `pool` in turn, one at a time, until `stop_at`."""
    from arena.match.runner import run_match

    number = 0
    while time.monotonic() < stop_at:
        seats = [pool[number % len(pool)], pool[(number + 1) % len(pool)]]
        with lock:
            tally.planned += 1
        try:
            run_match(spec["game"], seats, spec["index"] * 1_000_000 + number, gateway=client)
            with lock:
                tally.finished += 1
        except Exception as error:  # noqa: BLE001 - MatchAborted or worse: counted as lost, the run goes on
            with lock:
                tally.problems.append(f"{type(error).__name__}: {error}"[:300])
        number += 1


# -- the parent: start, watch, stop ----------------------------------------------------------------

def child(role: str, spec: dict[str, Any]) -> subprocess.Popen[str]:
    """This script in `role`, `spec` sent on its stdin."""
    process = subprocess.Popen([sys.executable, __file__, f"--{role}"], cwd=ROOT, stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    assert process.stdin is not None
    process.stdin.write(json.dumps(spec))
    process.stdin.close()
    return process


def read_line(process: subprocess.Popen[str], timeout_s: float, what: str) -> str:
    """The next line `process` prints, within `timeout_s`; SystemExit saying `what` did not come."""
    assert process.stdout is not None
    with selectors.DefaultSelector() as selector:
        selector.register(process.stdout, selectors.EVENT_READ)
        if selector.select(timeout_s):
            line = process.stdout.readline()
            if line:
                return line.strip()
    raise SystemExit(f"load: {what} did not come within {timeout_s:.0f} s (exit code {process.poll()})")


def start_gateway(folder: Path, plan: Plan) -> tuple[subprocess.Popen[str], str, str]:
    """`arena serve` on a fresh database with the plan's bots registered: process, address, CA file."""
    from arena.store import Store

    database = f"sqlite:///{folder}/load.db"
    store = Store(database)
    tokens = [store.register_bot(f"load{number:05d}") for number in range(plan.bots)]
    (folder / "tokens.json").write_text(json.dumps(tokens))
    tls_args, ca = [], ""
    if plan.tls:
        from tests.arena.tls_fixtures import make_certificates

        files = make_certificates(folder)
        tls_args, ca = ["--tls-cert", str(files.cert), "--tls-key", str(files.key)], str(files.ca)
    env = {**os.environ, "ARENA_DB": database, "ARENA_HOST_KEY": KEY}
    server = subprocess.Popen([sys.executable, "-m", "arena.cli", "serve", "--port", "0", "--log-level", "warning",
                               *tls_args], env=env, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                              text=True)
    line = read_line(server, 60, "the gateway's 'listening' line")
    if not line.startswith("arena gateway listening on "):
        raise SystemExit(f"load: arena serve did not start: {line!r}")
    return server, line.split()[4].rstrip(","), ca


def connect_bots(plan: Plan, address: str, ca: str, tokens: list[str], started: list[subprocess.Popen[str]]) -> None:
    """The bots' processes (added to `started` at once), until every stream of each was welcomed."""
    shares = [tokens[i::plan.bot_processes] for i in range(plan.bot_processes)]
    processes = [child("bots-process", {"address": address, "ca": ca, "think_ms": plan.think_ms, "tokens": share})
                 for share in shares if share]
    started += processes
    for process in processes:
        read_line(process, 60 + plan.bots / 10, "every bot's welcome")


def run_matches(plan: Plan, address: str, ca: str, started: list[subprocess.Popen[str]]) -> list[dict[str, Any]]:
    """The runners' processes (added to `started`), M threads between them, each with its own bots; their tallies."""
    per_thread = plan.bots // plan.matches
    names = [f"load{number:05d}" for number in range(per_thread * plan.matches)]
    counts = [len(range(i, plan.matches, plan.runner_processes)) for i in range(plan.runner_processes)]
    runners, first = [], 0
    for index, threads in enumerate(c for c in counts if c):
        spec = {"address": address, "ca": ca, "game": plan.game, "seconds": plan.seconds, "index": index,
                "threads": threads, "names": names[first * per_thread:(first + threads) * per_thread]}
        runners.append(child("runner-process", spec))
        started.append(runners[-1])
        first += threads
    return [json.loads(read_line(runner, plan.seconds + 180, "a runner's tally")) for runner in runners]


def run_load(plan: Plan) -> dict[str, Any]:
    """One whole run: the gateway, then the bots, idle, then the matches; every process stopped after."""
    plan.check()
    processes: list[subprocess.Popen[str]] = []
    with tempfile.TemporaryDirectory(prefix="arena-load-") as folder:
        try:
            server, address, ca = start_gateway(Path(folder), plan)
            processes.append(server)
            time.sleep(plan.idle_s)  # not synchronisation: the span the gateway's idle CPU is measured over
            bare = GatewaySample.of(server.pid)
            connect_bots(plan, address, ca, json.loads((Path(folder) / "tokens.json").read_text()), processes)
            idle_from = GatewaySample.of(server.pid)
            time.sleep(plan.idle_s)  # as above, with every bot connected
            idle_to = GatewaySample.of(server.pid)
            tallies = run_matches(plan, address, ca, processes)
            loaded = GatewaySample.of(server.pid)
            return summary(plan, tallies, bare, idle_from, idle_to, loaded)
        finally:
            stop_all(processes)


def stop_all(processes: list[subprocess.Popen[str]]) -> None:
    """SIGTERM to every process started (the gateway last), then SIGKILL to any still running."""
    for process in reversed(processes):
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
    for process in reversed(processes):
        try:
            process.wait(20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def summary(plan: Plan, tallies: list[dict[str, Any]], bare: GatewaySample, idle_from: GatewaySample,
            idle_to: GatewaySample, loaded: GatewaySample) -> dict[str, Any]:
    at_runner = [x for t in tallies for x in t["at_runner_ms"]]
    at_gateway = [x for t in tallies for x in t["at_gateway_ms"]]
    faults: dict[str, int] = {}
    for tally in tallies:
        for kind, count in tally["faults"].items():
            faults[kind] = faults.get(kind, 0) + count
    planned, finished = sum(t["planned"] for t in tallies), sum(t["finished"] for t in tallies)
    return {
        "plan": asdict(plan), "connections": plan.bots, "matches_in_flight": plan.matches,
        "decisions": len(at_runner),
        "decisions_per_s": round(len(at_runner) / max((t["seconds"] for t in tallies), default=1.0)),
        "at_runner": latency_summary(at_runner, plan.think_ms),
        "at_gateway": latency_summary(at_gateway, plan.think_ms),
        "gateway_cpu_percent": {"idle": cpu_percent(idle_from, idle_to), "load": cpu_percent(idle_to, loaded)},
        "gateway_rss_mb": {"no_bots": round(bare.rss_kb / 1024, 1), "idle": round(idle_to.rss_kb / 1024, 1),
                           "load": round(loaded.rss_kb / 1024, 1)},
        "rss_kb_per_connection": round((idle_to.rss_kb - bare.rss_kb) / plan.bots, 1),
        "arena_timeouts": faults.get(str(TIMEOUT), 0), "faults": faults,
        "matches_planned": planned, "matches_finished": finished, "matches_lost": planned - finished,
        "problems": [p for t in tallies for p in t["problems"]][:5],
        "load_average_1min": round(os.getloadavg()[0], 2),
    }


def print_row(result: dict[str, Any]) -> None:
    runner, cpu, rss = result["at_runner"], result["gateway_cpu_percent"], result["gateway_rss_mb"]
    print(f"| {result['connections']} | {result['matches_in_flight']} | {'TLS' if result['plan']['tls'] else 'plain'} "
          f"| {result['decisions_per_s']} | {runner['p50_ms']} / {runner['p99_ms']} / {runner['p99.9_ms']} "
          f"| {runner['p99_above_think_ms']} | {cpu['idle']} / {cpu['load']} | {rss['idle']} / {rss['load']} "
          f"| {result['rss_kb_per_connection']} | {result['arena_timeouts']} | {result['matches_lost']} "
          f"| {result['load_average_1min']} |")


HEADER = ("| bots | matches in flight | transport | decisions/s | at runner p50 / p99 / p99.9 ms | p99 above think ms "
          "| gateway CPU % idle / load | gateway RSS MB idle / load | KB per connection | arena timeouts | lost "
          "| load avg |\n|---|---|---|---|---|---|---|---|---|---|---|---|")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bots", type=int, default=100, help="connected bots, N (default 100)")
    parser.add_argument("--matches", type=int, default=20, help="matches in flight, M (default 20; N >= 2M)")
    parser.add_argument("--seconds", type=float, default=10.0, help="how long matches are started (default 10)")
    parser.add_argument("--think-ms", type=float, default=10.0, help="each bot's time per decision (default 10)")
    parser.add_argument("--tls", action="store_true", help="the gateway serves TLS, the bots and runners verify it")
    parser.add_argument("--game", default="gang_of_dice")
    parser.add_argument("--bot-processes", type=int, default=2)
    parser.add_argument("--runner-processes", type=int, default=2)
    parser.add_argument("--bots-process", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--runner-process", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.bots_process or args.runner_process:
        spec = json.loads(sys.stdin.read())
        (bots_process if args.bots_process else runner_process)(spec)
        return
    plan = Plan(args.bots, args.matches, args.seconds, args.think_ms, args.tls, args.game, args.bot_processes,
                args.runner_processes)
    result = run_load(plan)
    print(json.dumps(result))
    print(HEADER)
    print_row(result)


if __name__ == "__main__":
    main()
