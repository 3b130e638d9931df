"""Per-decision latency of a dial-in bot over TLS against plaintext (the goal: at most 1.1×).

    .venv/bin/python bench/tls_latency.py [--decisions 1000] [--bot python-sdk|node] [--game riviera]

Two `arena serve` processes side by side on 127.0.0.1, one plaintext, one with a certificate made
here by openssl (the commands of docs/tls.md); one bot process dialling each (over TLS with --ca to
the second); the runner here, on the default host leg (over TLS to the second). Blocks of decisions
take turns between the two, so the machine's load falls on both alike. Two figures each:
- at gateway: `DecideReply.elapsed_ms`, the bot's own leg only (gRPC stream: TLS or not);
- at runner: one whole decision from this process, both legs (host leg + bot stream).
Prints JSON; the figures go to BENCHMARKS.md, "TLS".
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from gateway_latency import KEY, percentiles, sample_request, start_bot, timed_decisions, wait_for_bot  # noqa: E402

from arena.link.client import GatewayClient  # noqa: E402
from arena.store import Store  # noqa: E402
from tests.arena.tls_fixtures import make_certificates  # noqa: E402


def serve(env: dict[str, str], *tls: str) -> tuple[subprocess.Popen[str], str]:
    """`arena serve --port 0` and the address it says it listens on."""
    server = subprocess.Popen([sys.executable, "-m", "arena.cli", "serve", "--port", "0",
                               "--log-level", "warning", *tls],
                              env=env, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    line = server.stdout.readline() if server.stdout else ""
    if not line.startswith("arena gateway listening on "):
        raise SystemExit(f"arena serve did not start: {line!r}")
    return server, line.split()[4].rstrip(",")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--decisions", type=int, default=1000, help="decisions per side (after warm-up)")
    parser.add_argument("--bot", choices=("python-sdk", "node"), default="python-sdk")
    parser.add_argument("--game", default="riviera")
    parser.add_argument("--rounds", type=int, default=4, help="alternating blocks per side")
    args = parser.parse_args()
    request = sample_request(args.game)
    with tempfile.TemporaryDirectory() as folder:
        files = make_certificates(Path(folder))
        env = {k: v for k, v in os.environ.items() if k not in ("ARENA_TLS_CA", "ARENA_TLS")}
        env["ARENA_HOST_KEY"] = KEY
        processes: list[subprocess.Popen] = []
        try:
            clients = {}
            for side, tls in (("plaintext", ()), ("tls", ("--tls-cert", str(files.cert), "--tls-key", str(files.key)))):
                server, address = serve({**env, "ARENA_DB": f"sqlite:///{folder}/{side}.db"}, *tls)
                token = Store(f"sqlite:///{folder}/{side}.db").register_bot("benchbot")
                bot = (start_bot(args.bot, address, token) if not tls
                       else start_tls_bot(args.bot, address, token, files.ca))
                processes += [server, bot]
                clients[side] = GatewayClient(address, key=KEY, ca_file=str(files.ca) if tls else None, tls=bool(tls))
                wait_for_bot(clients[side], request)
            samples = {side: ([], []) for side in clients}
            block = args.decisions // args.rounds
            for _ in range(args.rounds):
                for side, client in clients.items():
                    timed_decisions(client, request, block + 50, *samples[side], warm_up=50)
            results = {side: {"at_gateway": percentiles(g), "at_runner": percentiles(r)}
                       for side, (g, r) in samples.items()}
            results["ratio_p50"] = {where: round(results["tls"][where]["p50_ms"]
                                                 / results["plaintext"][where]["p50_ms"], 3)
                                    for where in ("at_gateway", "at_runner")}
            results["ratio_mean"] = {where: round(results["tls"][where]["mean_ms"]
                                                  / results["plaintext"][where]["mean_ms"], 3)
                                     for where in ("at_gateway", "at_runner")}
            for client in clients.values():
                client.close()
        finally:
            for process in processes:
                process.terminate()
                process.wait()
    print(json.dumps({"bot": args.bot, "decisions_per_side": block * args.rounds, **results}, indent=2))


def start_tls_bot(kind: str, address: str, token: str, ca: Path) -> subprocess.Popen[bytes]:
    """The bot of gateway_latency.start_bot, dialling over TLS with --ca."""
    script = ["bots/examples/python/random_bot.py"] if kind == "python-sdk" else ["bots/examples/node/bot.js"]
    interpreter = sys.executable if kind == "python-sdk" else "node"
    argv = [interpreter, str(ROOT / script[0]), "--address", address, "--token", token, "--ca", str(ca)]
    return subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


if __name__ == "__main__":
    main()
