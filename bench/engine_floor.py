"""The loop's own cost: bench/engine_speed.py's random playouts through an engine that does nothing.

bench/engine_speed.py times the engines through the contract, one Python call per chance node and
per decision (what a search bot or the match runner does). Part of each seat decision's time is
that loop's own: its calls, `rng.choice`, the dict of joint actions, `sample_chance`'s draw. This
script records seeded playouts of the real engine (every node's kind, acting seats, legal actions
and chance tables) and plays the same loop over the recording, where every engine call is an
attribute read: the rate no engine behind this contract can pass, whatever it is written in.

Per game and player count it prints the engine's rate, the loop alone over the same nodes, the
nodes per seat decision, and how many microseconds of a seat decision are the engine's and the
loop's. `--tree DIR` measures another checkout's engine per row (bench/engine_speed.py --tree):
its rate, and the engine time per seat decision that twice its rate would leave beside the loop.

Usage: .venv/bin/python bench/engine_floor.py [--games riga] [--players 3,4] [--seconds 2]
       [--playouts 40] [--tree /work/issue36_base]
"""

from __future__ import annotations

import argparse
import random
from collections.abc import Sequence
from pathlib import Path

import engine
from engine import registry
from engine.core import NodeKind, State, sample_chance


class RecordedNode(State):
    """One recorded position: what the loop asks of it is already there. A State, as the compiled
    `sample_chance` takes only States; its slots shadow State's `kind` property."""

    __slots__ = ("kind", "acting", "legal", "distribution", "next")

    def __init__(self, kind: NodeKind) -> None:
        self.kind = kind  # type: ignore[misc]
        self.acting: tuple[int, ...] = ()
        self.legal: dict[int, Sequence[int]] = {}
        self.distribution: tuple[Sequence[int], Sequence[float]] = ((), ())
        self.next: RecordedNode | None = None

    def acting_players(self) -> tuple[int, ...]:
        return self.acting

    def legal_actions(self, seat: int) -> Sequence[int]:
        return self.legal[seat]

    def _chance_distribution(self) -> tuple[Sequence[int], Sequence[float]]:
        return self.distribution

    def apply(self, actions: object) -> RecordedNode | None:
        return self.next

    def apply_chance(self, outcome: int) -> RecordedNode | None:
        return self.next

    def observation(self, seat: int) -> None:
        return None

    def _observation(self, seat: int) -> None:  # State's abstract hook; observation() is above
        return None


class Recording:
    """Seeded playouts of a real game, replayed in turn: `initial_state()` is the next one's first node."""

    def __init__(self, game: object, playouts: int) -> None:
        rng = random.Random(1)
        self.starts = [record(game, rng) for _ in range(playouts)]
        self.turn = 0

    def initial_state(self) -> RecordedNode:
        self.turn = (self.turn + 1) % len(self.starts)
        return self.starts[self.turn]


def record(game, rng: random.Random) -> RecordedNode:  # noqa: ANN001
    """One random playout of `game`, as a chain of RecordedNodes ending at a TERMINAL one."""
    state = game.initial_state()
    first = node = RecordedNode(state.kind)
    while state.kind is not NodeKind.TERMINAL:
        if state.kind is NodeKind.CHANCE:
            node.distribution = state._chance_distribution()
            state = state.apply_chance(sample_chance(state, rng))
        else:
            node.acting = state.acting_players()
            node.legal = {seat: state.legal_actions(seat) for seat in node.acting}
            state = state.apply({seat: rng.choice(node.legal[seat]) for seat in node.acting})
        node.next = RecordedNode(state.kind)
        node = node.next
    return first


def nodes_per_decision(recording: Recording) -> tuple[float, float]:
    """(chance nodes, decision nodes) per seat decision over the recording."""
    chance = decision_nodes = seat_decisions = 0
    for node in recording.starts:
        walk: RecordedNode | None = node
        while walk is not None and walk.kind is not NodeKind.TERMINAL:
            if walk.kind is NodeKind.CHANCE:
                chance += 1
            else:
                decision_nodes += 1
                seat_decisions += len(walk.acting)
            walk = walk.next
    return chance / seat_decisions, decision_nodes / seat_decisions


def measure(game_id: str, players: int, args: argparse.Namespace) -> dict[str, float]:
    """The engine's seat decisions/s, the loop's alone over its recorded playouts and `--tree`'s
    engine, runs alternating, best of `--repeat`."""
    import engine_speed  # bench/, this script's folder: the very loop engine_speed times

    game = registry.make(game_id, players)
    recording = Recording(game, args.playouts)
    rates = {"engine": 0.0, "loop": 0.0, "tree": 0.0}
    for _ in range(args.repeat):
        if args.tree:
            tree = engine_speed.measure_tree(Path(args.tree), game_id, players, args.seconds)
            rates["tree"] = max(rates["tree"], tree.decisions)
        real = engine_speed.timed_playouts(game, engine_speed.playout, args.seconds)[0]
        loop = engine_speed.timed_playouts(recording, engine_speed.playout, args.seconds)[0]
        rates["engine"], rates["loop"] = max(rates["engine"], real), max(rates["loop"], loop)
    rates["chance"], rates["decision_nodes"] = nodes_per_decision(recording)
    return rates


def print_row(game_id: str, players: int, rates: dict[str, float]) -> None:
    """One row; with a `--tree` rate, what 2 × it leaves the engine beside the loop (µs, and
    as a share of the engine's time now), or "none" where the loop alone is slower. An engine at
    the loop's floor (a C state: its calls cost what the recording's attribute reads do) reads
    "floor" for its own µs: within the noise of the two rates, not a negative time."""
    engine_us = 1e6 / rates["engine"] - 1e6 / rates["loop"]
    at_floor = engine_us <= 0.05 * 1e6 / rates["loop"]
    cells = [f"{rates['engine']:,.0f}", f"{rates['loop']:,.0f}", f"{rates['chance']:.2f}",
             f"{rates['decision_nodes']:.2f}", f"{1e6 / rates['loop']:.2f}",
             "floor" if at_floor else f"{engine_us:.2f}"]
    if rates["tree"]:
        room = 1e6 / (2 * rates["tree"]) - 1e6 / rates["loop"]
        share = "" if at_floor else f" ({room / engine_us:.2f}×)"
        cells += [f"{rates['tree']:,.0f}", f"{rates['engine'] / rates['tree']:.2f}×",
                  f"{room:.2f}{share}" if room > 0 else "none"]
    print(f"| {game_id} | {players} | " + " | ".join(cells) + " |", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", default=",".join(registry.game_ids()))
    parser.add_argument("--players", default="3,4", help="player counts, e.g. 3 or 2,4")
    parser.add_argument("--seconds", type=float, default=2.0, help="CPU seconds per run and row")
    parser.add_argument("--repeat", type=int, default=2, help="best of this many runs per row")
    parser.add_argument("--playouts", type=int, default=40, help="recorded playouts per row")
    parser.add_argument("--tree", metavar="DIR",
                        help="another checkout set up with scripts/setup.sh: its engine as the anchor")
    args = parser.parse_args()
    import engine_speed

    chosen = engine_speed.rows(args.games, args.players)
    tree = engine_speed.checked_tree(args.tree).name if args.tree else None
    print(f"engine: {engine.IMPLEMENTATION} ({'compiled with mypyc' if engine.compiled() else 'Python sources'})")
    names = ["seat decisions/s engine", "seat decisions/s loop alone", "chance nodes per seat decision",
             "decision nodes per seat decision", "loop µs per seat decision", "engine µs per seat decision"]
    if tree:
        names += [f"seat decisions/s {tree}", f"engine / {tree}",
                  f"engine µs a seat decision at 2 × {tree} (× now)"]
    print("| game | players | " + " | ".join(names) + " |")
    print("|---|---:|" + "---:|" * len(names))
    for game_id, players in chosen:
        print_row(game_id, players, measure(game_id, players, args))


if __name__ == "__main__":
    main()
