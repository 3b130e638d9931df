"""Built-in bots (random, heuristic, ismcts) in play: legal moves always, reproducible, stronger up the ladder.

Every registered game at every player count runs a playout with a mix of bots, each answer checked
against the legal actions; the toy game (tests/engine/toy_game.py) stands in for a simultaneous,
hidden-information game. The search budget is tiny here: this is about behaviour, not strength
(bench/bot_strength.py measures that).
"""

from __future__ import annotations

import random
import statistics
from typing import Any

import pytest

from arena.match.runner import run_match
from bots import make_bot, split_specs
from bots.base import Bot
from bots.heuristic import has_heuristic, heuristics
from engine import registry
from engine.core import Game, play
from tests.engine.toy_game import ToyGame

TINY_ISMCTS = "ismcts:sims=3,depth=4"


class CheckedBot:
    """Wraps a bot and records every answer that is not one of the legal actions."""

    def __init__(self, bot: Bot) -> None:
        self.bot = bot
        self.illegal: list[tuple[int, list[int]]] = []
        self.decisions = 0

    def act(self, observation: dict[str, Any], legal_actions: list[int]) -> int:
        action = self.bot.act(observation, list(legal_actions))
        self.decisions += 1
        if action not in legal_actions:
            self.illegal.append((action, legal_actions))
            return legal_actions[0]  # keep playing so every illegal answer is collected
        return action


def table_cases() -> list[Any]:
    cases = []
    for game_id in registry.game_ids():
        info = registry.info(game_id)
        for players in range(info.min_players, info.max_players + 1):
            cases.append(pytest.param(game_id, players, id=f"{game_id}-{players}p"))
    return cases


def specs_for(game: Game, players: int, seed: int) -> list[str]:
    """A mix of bots around the table, rotating so every bot meets every seat across players."""
    ladder = ["random", "heuristic", TINY_ISMCTS]
    return [ladder[(seat + seed) % 3] for seat in range(players)]


def checked_playout(game: Game, specs: list[str], seed: int) -> list[CheckedBot]:
    bots = [CheckedBot(make_bot(spec, game, seat, seed * 10 + seat)) for seat, spec in enumerate(specs)]
    final = play(game.initial_state(), bots, random.Random(seed)).final
    assert final.kind.value == "terminal"
    return bots


@pytest.mark.parametrize(("game_id", "players"), table_cases())
def test_every_bot_answers_only_legal_actions(game_id: str, players: int) -> None:
    game = registry.make(game_id, players)
    bots = checked_playout(game, specs_for(game, players, seed=players), seed=players)
    for seat, bot in enumerate(bots):
        assert bot.decisions > 0, f"seat {seat} never decided: the check would be empty"
        assert not bot.illegal, f"{bot.bot.name} (seat {seat}) answered illegal actions: {bot.illegal[:3]}"


def option_cases() -> list[Any]:
    cases = []
    for game_id in registry.game_ids():
        info = registry.info(game_id)
        for name, spec in info.options.items():
            for value in spec.choices:
                if value != spec.default:
                    cases.append(pytest.param(game_id, {name: value}, id=f"{game_id}-{name}={value}"))
    return cases


@pytest.mark.parametrize(("game_id", "options"), option_cases())
def test_heuristic_answers_legally_under_every_option(game_id: str, options: dict[str, Any]) -> None:
    info = registry.info(game_id)
    game = registry.make(game_id, info.max_players, **options)
    specs = ["heuristic" if seat % 2 == 0 else "random" for seat in range(info.max_players)]
    for bot in checked_playout(game, specs, seed=3):
        assert not bot.illegal, f"{bot.bot.name} answered illegal actions under {options}: {bot.illegal[:3]}"


@pytest.mark.parametrize("players", [2, 3, 4])
def test_ismcts_answers_legally_in_the_simultaneous_toy_game(players: int) -> None:
    game = ToyGame(players)
    for seed in range(5):
        bots = checked_playout(game, ["ismcts:sims=20"] + ["random"] * (players - 1), seed)
        assert not bots[0].illegal


def test_every_registered_game_has_a_heuristic() -> None:
    assert sorted(heuristics()) == registry.game_ids()


@pytest.mark.parametrize("game_id", registry.game_ids())
def test_heuristic_beats_random(game_id: str) -> None:
    """Seat-rotated pairs with shared seeds: the heuristic should win nearly every game."""
    wins = []
    for seed in range(8):
        for specs in (["heuristic", "random"], ["random", "heuristic"]):
            record = run_match(game_id, specs, seed)
            me, other = specs.index("heuristic"), specs.index("random")
            wins.append(1.0 if record.ranks[me] < record.ranks[other]
                        else 0.5 if record.ranks[me] == record.ranks[other] else 0.0)
    assert statistics.mean(wins) >= 0.75, f"heuristic scored only {statistics.mean(wins):.2f} against random"


def test_ismcts_beats_random_in_the_toy_game() -> None:
    """Show the good cards, fold the bad ones: ISMCTS must find that from samples of hidden cards."""
    game = ToyGame(2)
    margins = []
    for seed in range(120):
        search_seat = seed % 2
        specs = ["ismcts:sims=40" if seat == search_seat else "random" for seat in range(2)]
        bots = [make_bot(spec, game, seat, seed * 7 + seat) for seat, spec in enumerate(specs)]
        returns = play(game.initial_state(), bots, random.Random(seed)).final.returns()
        margins.append(returns[search_seat] - returns[1 - search_seat])
    mean, error = statistics.mean(margins), statistics.stdev(margins) / len(margins) ** 0.5
    assert mean > 3 * error and mean > 0.3, f"ismcts margin {mean:.2f} ± {error:.2f} over random"


def test_ismcts_is_reproducible_from_its_seed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(registry.GAMES, "toy", "tests.engine.toy_game:ToyGame")
    for game_id, players in (("toy", 3), ("lost_cities_rivals", 2)):
        with_heuristic = has_heuristic(game_id)
        search = "ismcts:sims=4,depth=3" if with_heuristic else "ismcts:sims=4"
        specs = [search] + ["heuristic" if with_heuristic else "random"] * (players - 1)
        first = run_match(game_id, specs, seed=9)
        again = run_match(game_id, specs, seed=9)
        assert [s.actions for s in first.steps] == [s.actions for s in again.steps]


def test_ismcts_seed_changes_its_play() -> None:
    game = ToyGame(2)
    state = game.initial_state().apply_chance(3).apply_chance(5)
    observation, legal = state.observation(0), state.legal_actions(0)
    answers = {make_bot("ismcts:sims=1", game, 0, seed).act(observation, legal) for seed in range(20)}
    assert answers == {0, 1}, "one simulation picks its single tried action at random"


def test_ismcts_time_budget_is_kept() -> None:
    import time

    game = registry.make("riviera", 4)
    bot = make_bot("ismcts:ms=30,rollout=random", game, 0, 1)
    state = game.initial_state()
    rng = random.Random(2)
    from engine.core import NodeKind, sample_chance

    while not (state.kind is NodeKind.DECISION and 0 in state.acting_players() and len(state.legal_actions(0)) > 1):
        if state.kind is NodeKind.CHANCE:
            state = state.apply_chance(sample_chance(state, rng))
        else:
            state = state.apply({s: state.legal_actions(s)[0] for s in state.acting_players()})
    # this thread's CPU time: on a loaded machine the wall clock also counts other processes' turns
    # (the bot's own deadline is on the wall clock, so it never thinks longer in CPU time)
    started = time.thread_time()
    action = bot.act(state.observation(0), state.legal_actions(0))
    elapsed_ms = (time.thread_time() - started) * 1000
    assert action in state.legal_actions(0)
    assert elapsed_ms < 30 + 250, f"one decision took {elapsed_ms:.0f} ms of CPU on a 30 ms budget"


def test_a_deadline_before_any_simulation_falls_back_to_the_heuristic_move(monkeypatch: pytest.MonkeyPatch) -> None:
    import time

    from bots.ismcts import IsmctsBot

    game = registry.make("lost_cities_rivals", 2)
    state = game.initial_state()
    rng = random.Random(4)
    from engine.core import NodeKind, sample_chance

    while not (state.kind is NodeKind.DECISION and len(state.legal_actions(state.acting_players()[0])) > 1):
        state = state.apply_chance(sample_chance(state, rng)) if state.kind is NodeKind.CHANCE else \
            state.apply({s: state.legal_actions(s)[0] for s in state.acting_players()})
    seat = state.acting_players()[0]
    observation, legal = state.observation(seat), state.legal_actions(seat)
    heuristic_move = make_bot("heuristic", game, seat, 1).act(observation, legal)
    slow_hint = IsmctsBot._hint

    def hint_after_the_deadline(self: IsmctsBot, *args: Any) -> int | None:
        time.sleep(0.003)  # the 1 ms budget is gone before the first world
        return slow_hint(self, *args)

    monkeypatch.setattr(IsmctsBot, "_hint", hint_after_the_deadline)
    bot = make_bot("ismcts:ms=1", game, seat, 1)
    assert bot.act(observation, legal) == heuristic_move
    assert bot.last_simulations == 0


@pytest.mark.parametrize("sims", [4, 50])
def test_the_simulation_budget_is_kept(sims: int) -> None:
    """At most `sims` simulations, or one per legal move when there are more moves than that."""
    from engine.core import NodeKind, sample_chance

    game = registry.make("lost_cities_rivals", 2)
    bots = [make_bot(f"ismcts:sims={sims}", game, seat, 1) for seat in range(2)]
    rng, state, checked = random.Random(6), game.initial_state(), 0
    while state.kind is not NodeKind.TERMINAL and checked < 15:
        if state.kind is NodeKind.CHANCE:
            state = state.apply_chance(sample_chance(state, rng))
            continue
        seat = state.acting_players()[0]
        legal = state.legal_actions(seat)
        action = bots[seat].act(state.observation(seat), legal)
        if len(legal) > 1:
            assert 0 < bots[seat].last_simulations <= max(sims, len(legal)), (len(legal), bots[seat].last_simulations)
            checked += 1
        state = state.apply({seat: action})
    assert checked == 15


def test_halving_departs_from_the_heuristic_only_on_a_significant_paired_gain() -> None:
    bot = make_bot("ismcts:trust=2", registry.make("lost_cities_rivals", 2), 0, 1)
    hint, other = 0, 5
    base = [0.1 * (i % 7) for i in range(40)]  # world luck, shared by both moves
    steady = {hint: base, other: [v + 0.02 for v in base]}
    assert bot._choose(steady, [other, hint], hint, {}, [hint, other]) == other, "a small gain in every world"
    noisy = {hint: base, other: [v + (0.3 if i % 2 else -0.28) for i, v in enumerate(base)]}
    assert bot._choose(noisy, [other, hint], hint, {}, [hint, other]) == hint, "ahead on average, by noise"


def test_the_search_below_the_root_is_the_games_default_unless_given() -> None:
    lost_cities, riga = registry.make("lost_cities_rivals", 2), registry.make("riga", 2)
    assert not make_bot("ismcts", lost_cities, 0, 1).tree, "lost_cities_rivals sets SEARCH_DEFAULTS tree=0"
    assert make_bot("ismcts:tree=1", lost_cities, 0, 1).tree
    assert make_bot("ismcts", riga, 0, 1).tree
    assert make_bot("ismcts", ToyGame(2), 0, 1).tree, "a game without a heuristic searches the tree"


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("ismcts:sims=0", "sims=0"),
        ("ismcts:sims=2.5", "sims=2.5"),
        ("ismcts:ms=-5", "ms=-5"),
        ("ismcts:c=-1", "c=-1"),
        ("ismcts:sw=2", "sw=2"),
        ("ismcts:rollout=smart", "rollout='smart'"),
        ("ismcts:prior=-1", "prior=-1"),
        ("ismcts:depth=x", "depth='x'"),
        ("ismcts:trust=-1", "trust=-1"),
        ("ismcts:widen=no", "widen='no'"),
        ("ismcts:root=best", "root='best' must be halving or ucb"),
        ("ismcts:tree=2", "tree=2 must be 1"),
        ("ismcts:speed=3", "speed"),
        ("heuristic:level=2", "level"),
    ],
)
def test_bad_parameters_are_refused_with_a_clear_message(spec: str, message: str) -> None:
    game = registry.make("lost_cities_rivals", 2)
    with pytest.raises(ValueError, match=message.replace(".", r"\.").replace("(", r"\(")):
        make_bot(spec, game, 0, 1)


def test_heuristic_for_a_game_without_one_names_those_with_one() -> None:
    with pytest.raises(ValueError, match="no heuristic bot for game 'toy'; games with one: gang_of_dice"):
        make_bot("heuristic", ToyGame(2), 0, 1)
    with pytest.raises(ValueError, match="rollout=heuristic and prior need a heuristic; toy has none"):
        make_bot("ismcts:rollout=heuristic", ToyGame(2), 0, 1)


def test_spec_lists_keep_each_specs_parameters_together() -> None:
    assert split_specs("random, ismcts:sims=500,c=1.4,heuristic") == ["random", "ismcts:sims=500,c=1.4", "heuristic"]
    assert split_specs("ismcts:sims=5,depth=4#b,random#2") == ["ismcts:sims=5,depth=4#b", "random#2"]
    assert split_specs("a,b") == ["a", "b"]
