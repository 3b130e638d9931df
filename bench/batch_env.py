"""Steps per second of the batch env (arena.envs.vector.BatchEnv) per game and batch size, against
our AEC env one step at a time, PettingZoo's classic environments and OpenSpiel in the same run.

A *step* is one seat's decision applied to one game with its observation and mask made for the
next seat, what a learner or a search pays per sample: a BatchEnv call with N games is N steps.
Actions are random legal ones, drawn from the masks (for the batch: one numpy draw for all games).
Rates are per CPU second of this process (time.process_time), as in bench/engine_speed.py, so
other load on the machine lowers them less than wall-clock rates would.

Tables:
1. ours: the AEC env (arena.envs.pettingzoo.env) stepped one by one, then BatchEnv with N games,
   and where a BatchEnv step's time goes (16 games: engine moves, observations, encoding, masks);
2. PettingZoo's classic environments stepped one by one (connect_four, tictactoe, texas_holdem);
   their imports need pygame (and rlcard for texas_holdem): `.venv/bin/pip install pygame rlcard`,
   else one line says they are skipped;
3. OpenSpiel's C++ games through its own vector env (open_spiel.python.vector_env.SyncVectorEnv of
   rl_environment.Environment: every player's information-state tensor and legal actions per step)
   with N games, and the bare C++ anchors of bench/openspiel_anchors.py (no observations; seat
   decisions/s); one line when pyspiel is missing (the `openspiel` extra).

4. ismcts: the share of a decision (sims=100) spent drawing its determinizations, the most that
   drawing them in a batch could save, and what one `sample_state` and one `resample` cost;
5. with `--encoder-reference PATH`: the encoder of this tree against another encoding.py.

Usage: .venv/bin/python bench/batch_env.py [--games riga,riviera] [--sizes 1,16,64,256]
       [--seconds 2] [--encoding-size 4096] [--skip-pettingzoo] [--skip-openspiel] [--ismcts 100]
       [--encoder-reference /work/main/arena/envs/encoding.py]
"""

from __future__ import annotations

import argparse
import importlib
import os
import random
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))  # bench/: openspiel_anchors, engine_speed

from arena.envs.encoding import DEFAULT_SIZE  # noqa: E402
from arena.envs.pettingzoo import env as aec_env  # noqa: E402
from arena.envs.vector import BatchEnv  # noqa: E402
from engine import registry  # noqa: E402

PLAYERS = {"riviera": 3, "gang_of_dice": 3, "lost_cities_rivals": 2, "riga": 3}
CLASSIC = ("connect_four_v3", "tictactoe_v3", "texas_holdem_v4")
# Turn-based games: SyncVectorEnv steps one action per game (goofspiel, simultaneous, is in the anchors).
OPENSPIEL = (("hearts", {}), ("liars_dice", {}), ("leduc_poker", {"players": 3}))


def timed(run: Callable[[], int], seconds: float) -> float:
    """Steps per CPU second: `run` (which returns the steps it made) repeated for `seconds` CPU s."""
    steps, started = 0, time.process_time()
    while (spent := time.process_time() - started) < seconds:
        steps += run()
    return steps / spent


def random_actions(rng: np.random.Generator, masks: np.ndarray) -> np.ndarray:
    """One uniformly random legal action per row of `masks`, in one numpy draw."""
    return np.where(masks == 1, rng.random(masks.shape), -1.0).argmax(axis=1)


def batch_rate(game_id: str, players: int, games: int, seconds: float, size: int) -> float:
    envs = BatchEnv(game_id, players, num_games=games, encoding_size=size)
    rng = np.random.default_rng(0)
    observations, _ = envs.reset(seed=0)

    def calls() -> int:
        nonlocal observations
        for _ in range(10):
            observations, *_ = envs.step(random_actions(rng, observations["action_mask"]))
        return 10 * games

    return timed(calls, seconds)


def aec_rate(make: Callable[[], Any], seconds: float) -> float:
    """A PettingZoo AEC env stepped one agent at a time, random legal actions, reset at the end."""
    game, rng = make(), random.Random(0)
    game.reset(seed=0)

    def episode() -> int:
        steps = 0
        for _agent in game.agent_iter():
            observation, _, terminated, truncated, _ = game.last()
            if terminated or truncated:
                game.step(None)
                continue
            game.step(rng.choice(np.flatnonzero(observation["action_mask"]).tolist()))
            steps += 1
        game.reset()
        return steps

    return timed(episode, seconds)


def our_tables(game_ids: list[str], sizes: list[int], seconds: float, size: int) -> None:
    print(f"\nOur games, encoding_size {size}: steps/s (one seat's decision, its next observation and mask)")
    print("| game | players | env | games per call | steps/s | vs the AEC env |")
    print("|---|---:|---|---:|---:|---:|")
    for game_id in game_ids:
        players = PLAYERS.get(game_id, registry.info(game_id).min_players)
        one = aec_rate(partial(aec_env, game_id, players, encoding_size=size), seconds)
        print(f"| {game_id} | {players} | AEC env (pettingzoo.py), one by one | 1 | {one:,.0f} | 1.00x |", flush=True)
        for games in sizes:
            rate = batch_rate(game_id, players, games, seconds, size)
            print(f"| {game_id} | {players} | BatchEnv (vector.py) | {games} | {rate:,.0f} | {rate / one:.2f}x |",
                  flush=True)


def breakdown_table(game_ids: list[str], games: int, seconds: float, size: int) -> None:
    """Where a BatchEnv step's time goes: the engine (actions, chance, legal actions), the engine's
    observation dicts, their encoding, the masks; CPU microseconds per step. Measured for `seconds`
    after 300 warm-up calls, so that the games are spread over all their phases, as in the rows above."""
    print(f"\nBatchEnv with {games} games: CPU us per step, by part (after 300 warm-up calls)")
    print("| game | players | engine moves | engine observations | encoding | masks | total |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for game_id in game_ids:
        players = PLAYERS.get(game_id, registry.info(game_id).min_players)
        envs = BatchEnv(game_id, players, num_games=games, encoding_size=size)
        rng = np.random.default_rng(0)
        observations, _ = envs.reset(seed=0)
        for _ in range(300):
            observations, *_ = envs.step(random_actions(rng, observations["action_mask"]))
        parts, calls, started = [0.0, 0.0, 0.0, 0.0], 0, time.process_time()
        masks = observations["action_mask"]
        while time.process_time() - started < seconds:
            masks = timed_parts(envs, random_actions(rng, masks).tolist(), parts)
            calls += 1
        per_step = [part / (calls * games) * 1e6 for part in parts]
        print(f"| {game_id} | {players} | " + " | ".join(f"{us:,.0f}" for us in per_step)
              + f" | {sum(per_step):,.0f} |", flush=True)


def timed_parts(envs: BatchEnv, actions: list[int], parts: list[float]) -> np.ndarray:
    """One BatchEnv step taken apart, each part's CPU time added to `parts`; the new masks."""
    from arena.envs.encoding import action_masks

    marks = [time.process_time()]
    envs.games.act(actions)
    marks.append(time.process_time())
    seen = envs.games.observations()
    marks.append(time.process_time())
    envs.encoder.encode_batch(seen)
    marks.append(time.process_time())
    masks = action_masks(envs.games.legal_actions(), envs.num_actions)
    marks.append(time.process_time())
    for part in range(4):
        parts[part] += marks[part + 1] - marks[part]
    return masks


def classic_table(seconds: float) -> None:
    try:
        modules = [importlib.import_module(f"pettingzoo.classic.{name}") for name in CLASSIC]
    except ImportError as error:
        print(f"\npettingzoo classic: skipped: {error} (.venv/bin/pip install pygame rlcard)")
        return
    print("\nPettingZoo's classic environments (AEC), stepped one by one")
    print("| environment | steps/s |")
    print("|---|---:|")
    for name, module in zip(CLASSIC, modules):
        print(f"| {name} | {aec_rate(module.env, seconds):,.0f} |", flush=True)


def openspiel_vector_rate(name: str, params: dict[str, Any], games: int, seconds: float) -> float:
    from open_spiel.python import rl_environment, vector_env

    envs = vector_env.SyncVectorEnv([
        rl_environment.Environment(name, chance_event_sampler=rl_environment.ChanceEventSampler(seed=index), **params)
        for index in range(games)])
    rng = random.Random(0)
    steps = envs.reset()

    def calls() -> int:
        nonlocal steps
        moved = 0
        for _ in range(10):
            outputs = []
            for step in steps:
                player = step.observations["current_player"]
                outputs.append(_Output(rng.choice(step.observations["legal_actions"][player])))
            steps, _, _, _ = envs.step(outputs, reset_if_done=True)
            moved += games
        return moved

    return timed(calls, seconds)


class _Output:
    """What SyncVectorEnv.step reads from an agent's output: its action."""

    def __init__(self, action: int) -> None:
        self.action = action


def openspiel_tables(sizes: list[int], seconds: float) -> None:
    from openspiel_anchors import openspiel_anchors, pyspiel_missing

    print()
    if pyspiel_missing():
        return
    print("OpenSpiel's C++ games through open_spiel.python.vector_env.SyncVectorEnv (rl_environment)")
    print("| openspiel game | games per call | steps/s |")
    print("|---|---:|---:|")
    for name, params in OPENSPIEL:
        for games in sizes:
            rate = openspiel_vector_rate(name, params, games, seconds)
            print(f"| {name} {params or ''} | {games} | {rate:,.0f} |", flush=True)
    openspiel_anchors(seconds, 1)


def decision_points(game: Any, count: int) -> list[tuple[Any, int]]:
    """(state, seat) at every 7th decision of a seeded random game with a real choice, `count` of them."""
    from engine.core import NodeKind, sample_chance

    rng, state, found, steps = random.Random(3), game.initial_state(), [], 0
    while state.kind is not NodeKind.TERMINAL and len(found) < count:
        if state.kind is NodeKind.CHANCE:
            state = state.apply_chance(sample_chance(state, rng))
            continue
        seat = state.acting_players()[0]
        if steps % 7 == 0 and len(state.legal_actions(seat)) > 1:
            found.append((state, seat))
        state = state.apply({p: rng.choice(state.legal_actions(p)) for p in state.acting_players()})
        steps += 1
    return found


def ismcts_table(game_ids: list[str], sims: int) -> None:
    """How much of an ismcts decision drawing its determinizations costs: the most a batch of them
    could save. Also the cost of one `Game.sample_state` and of one `State.resample` (the clone a
    batch could redraw from instead of rebuilding each world from the observation)."""
    print(f"\nismcts (sims={sims}): the share of a decision spent drawing determinizations")
    print("| game | players | ms/decision | worlds/decision | drawing them | sample_state | resample |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for game_id in game_ids:
        print(ismcts_row(game_id, sims), flush=True)


def ismcts_row(game_id: str, sims: int) -> str:
    import bots.ismcts as ismcts

    players = PLAYERS.get(game_id, registry.info(game_id).min_players)
    game = registry.make(game_id, players)
    points = decision_points(game, 8)
    drawing, worlds, original = [0.0], [0], ismcts._Worlds.get

    def counted(self: Any, index: int) -> Any:
        before, started = len(self.drawn), time.process_time()
        found = original(self, index)
        drawing[0] += time.process_time() - started
        worlds[0] += len(self.drawn) - before
        return found

    ismcts._Worlds.get = counted  # type: ignore[method-assign]
    try:
        started = time.process_time()
        for state, seat in points:
            ismcts.IsmctsBot(game, seat, random.Random(1), sims=sims).act(state.observation(seat),
                                                                          state.legal_actions(seat))
        total = time.process_time() - started
    finally:
        ismcts._Worlds.get = original  # type: ignore[method-assign]
    rng = random.Random(0)
    sample = timed(lambda: sum(game.sample_state(s.observation(p), rng) is not None for s, p in points), 0.5)
    redraw = timed(lambda: sum(s.resample({p}, rng) is not None for s, p in points), 0.5)
    return (f"| {game_id} | {players} | {total / len(points) * 1e3:,.0f} | {worlds[0] / len(points):.0f} "
            f"| {drawing[0] / total:.1%} | {1e6 / sample:,.0f} us | {1e6 / redraw:,.0f} us |")


def encoder_table(game_ids: list[str], reference: str, seconds: float) -> None:
    """`ObservationEncoder.encode` of this tree against the encoding module at path `reference`
    (e.g. main's), on the same observations: observations encoded per CPU second."""
    import importlib.util

    from arena.envs import encoding

    spec = importlib.util.spec_from_file_location("reference_encoding", reference)
    assert spec is not None and spec.loader is not None, f"{reference} is not a Python module"
    before = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(before)
    print(f"\nObservationEncoder.encode, observations/s: this tree against {reference}")
    print("| game | players | reference | now | now/reference |")
    print("|---|---:|---:|---:|---:|")
    for game_id in game_ids:
        players = PLAYERS.get(game_id, registry.info(game_id).min_players)
        observations = [state.observation(seat) for state, seat in decision_points(registry.make(game_id, players), 60)]
        rates = []
        for module in (before, encoding):
            encoder = module.ObservationEncoder(DEFAULT_SIZE)
            rates.append(timed(lambda: sum(encoder.encode(o) is not None for o in observations), seconds))  # noqa: B023
        print(f"| {game_id} | {players} | {rates[0]:,.0f} | {rates[1]:,.0f} | {rates[1] / rates[0]:.2f}x |", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", default=",".join(registry.game_ids()))
    parser.add_argument("--sizes", default="1,16,64,256", help="games per BatchEnv call")
    parser.add_argument("--seconds", type=float, default=2.0, help="CPU seconds per row")
    parser.add_argument("--encoding-size", type=int, default=DEFAULT_SIZE)
    parser.add_argument("--skip-pettingzoo", action="store_true")
    parser.add_argument("--skip-openspiel", action="store_true")
    parser.add_argument("--ismcts", type=int, default=100, metavar="SIMS",
                        help="ismcts budget of the determinization table (0 skips it)")
    parser.add_argument("--encoder-reference", metavar="PATH",
                        help="also time ObservationEncoder.encode against this encoding.py (e.g. main's)")
    args = parser.parse_args()
    sizes = [int(size) for size in args.sizes.split(",")]
    print(f"engine: {os.environ.get('ARENA_ENGINE', 'compiled when built')}; "
          f"load average {os.getloadavg()[0]:.1f}; {os.cpu_count()} cores")
    our_tables(args.games.split(","), sizes, args.seconds, args.encoding_size)
    breakdown_table(args.games.split(","), 16, args.seconds, args.encoding_size)
    if not args.skip_pettingzoo:
        classic_table(args.seconds)
    if not args.skip_openspiel:
        openspiel_tables(sizes, args.seconds)
    if args.encoder_reference:
        encoder_table(args.games.split(","), args.encoder_reference, args.seconds)
    if args.ismcts:
        ismcts_table(args.games.split(","), args.ismcts)


if __name__ == "__main__":
    main()
