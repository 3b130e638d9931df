"""The engine contract, checked for every registered game, player count and option variant.

A new game gets all of this for free by being added to `engine.registry.GAMES`. The toy game
in toy_game.py runs through the same checks so the suite is exercised before any real game.
"""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Iterator
from itertools import accumulate

import pytest

from engine import registry
from engine.core import Game, IllegalActionError, NodeKind, State, Step, play, replay, sample_chance
from engine.visibility import chance_views, seen_action_label
from tests.engine.toy_game import ToyGame

SEEDS = (0, 1, 2)


def variants(game_class: type[Game]) -> Iterator[tuple[int, dict[str, object]]]:
    """Every player count with the defaults, then each non-default option value on its own."""
    info = game_class.info
    for players in range(info.min_players, info.max_players + 1):
        yield players, {}
    for name, spec in info.options.items():
        for value in spec.choices:
            if value != spec.default:
                yield info.max_players, {name: value}


def cases() -> list[pytest.param]:
    classes = [registry.game_class(game_id) for game_id in registry.game_ids()] + [ToyGame]
    return [
        pytest.param((cls, players, options), id=f"{cls.info.id}-{players}p-{_option_id(options)}")
        for cls in classes
        for players, options in variants(cls)
    ]


def _option_id(options: dict[str, object]) -> str:
    return ",".join(f"{k}={v}" for k, v in options.items()) or "default"


class RandomAgent:
    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def act(self, observation: dict, legal_actions: list[int]) -> int:
        return self.rng.choice(legal_actions)


def random_playthrough(game: Game, seed: int):
    rng = random.Random(seed)
    agents = [RandomAgent(random.Random(seed * 100 + seat)) for seat in range(game.num_players)]
    bound = 50 * game.info.max_decisions + 10_000
    return play(game.initial_state(), agents, rng, max_steps=bound)


def walk(game: Game, seed: int) -> Iterator[State]:
    """Every state of one seeded random playout, the terminal one included."""
    state = game.initial_state()
    rng = random.Random(seed)
    yield state
    while state.kind is not NodeKind.TERMINAL:
        if state.kind is NodeKind.CHANCE:
            state = state.apply_chance(sample_chance(state, rng))
        else:
            state = state.apply({s: rng.choice(state.legal_actions(s)) for s in state.acting_players()})
        yield state


@pytest.fixture(params=cases())
def game(request) -> Game:
    cls, players, options = request.param
    return cls(players, **options)


def test_random_playouts_end_within_the_bound(game: Game) -> None:
    for seed in SEEDS:
        playthrough = random_playthrough(game, seed)
        assert playthrough.final.kind is NodeKind.TERMINAL, f"seed {seed} did not end"
        decisions = sum(step.actions is not None for step in playthrough.steps)
        assert decisions <= game.info.max_decisions


def test_acting_seats_have_sorted_legal_actions_in_range(game: Game) -> None:
    for seed in SEEDS:
        for state in walk(game, seed):
            acting = state.acting_players()
            assert (state.kind is NodeKind.DECISION) == bool(acting)
            for seat in range(game.num_players):
                legal = state.legal_actions(seat)
                if seat in acting:
                    assert legal, f"acting seat {seat} has no legal action"
                    assert legal == sorted(set(legal))
                    assert all(0 <= a < game.info.num_actions for a in legal)
                    assert all(isinstance(game.action_label(a), str) for a in legal)
                else:
                    assert legal == []


def test_apply_never_changes_the_state_it_is_called_on(game: Game) -> None:
    rng = random.Random(5)
    for seed in SEEDS:
        for state in walk(game, seed):
            before = copy.deepcopy(state)
            assert before == state, "a state must equal its deep copy (states are values)"
            if state.kind is NodeKind.CHANCE:
                state.apply_chance(sample_chance(state, rng))
            elif state.kind is NodeKind.DECISION:
                state.apply({s: rng.choice(state.legal_actions(s)) for s in state.acting_players()})
            assert state == before


def test_illegal_moves_raise(game: Game) -> None:
    for seed in SEEDS:
        for state in walk(game, seed):
            if state.kind is NodeKind.DECISION:
                seat = state.acting_players()[0]
                actions = {s: state.legal_actions(s)[0] for s in state.acting_players()}
                illegal = [a for a in range(-1, game.info.num_actions + 1) if a not in state.legal_actions(seat)]
                with pytest.raises(IllegalActionError):
                    state.apply({**actions, seat: illegal[0]})
                with pytest.raises(IllegalActionError):
                    state.apply({s: a for s, a in actions.items() if s != seat})
                with pytest.raises(IllegalActionError):
                    state.apply_chance(0)
            elif state.kind is NodeKind.CHANCE:
                outcomes = {o for o, _ in state.chance_outcomes()}
                with pytest.raises(IllegalActionError):
                    state.apply_chance(max(outcomes) + 1)
                with pytest.raises(IllegalActionError):
                    state.apply({})
            else:
                with pytest.raises(IllegalActionError):
                    state.apply({})


def test_chance_probabilities_sum_to_one(game: Game) -> None:
    for seed in SEEDS:
        for state in walk(game, seed):
            if state.kind is NodeKind.CHANCE:
                outcomes = state.chance_outcomes()
                assert outcomes and abs(sum(p for _, p in outcomes) - 1.0) < 1e-9
                assert len({o for o, _ in outcomes}) == len(outcomes)


def test_sample_chance_draws_what_rng_choices_draws(game: Game) -> None:
    """The same outcome from the same generator state, so seeded games stay what they were."""
    for state in walk(game, SEEDS[0]):
        if state.kind is NodeKind.CHANCE:
            outcomes = state.chance_outcomes()
            ours, theirs = random.Random(7), random.Random(7)
            expected = theirs.choices([o for o, _ in outcomes], [p for _, p in outcomes])[0]
            assert sample_chance(state, ours) == expected
            assert ours.getstate() == theirs.getstate()


def test_the_speed_hooks_agree_with_the_lists(game: Game) -> None:
    """`_chance_distribution`, `_is_chance_outcome` and `_is_legal` (what sample_chance and the
    checks of apply_chance / apply use) say exactly what chance_outcomes() and legal_actions()
    list, asked before and after the lists (a game may memoise them)."""
    for state in walk(game, SEEDS[0]):
        if state.kind is NodeKind.CHANCE:
            offered = {o for o, _ in copy.deepcopy(state).chance_outcomes()}
            candidates = range(min(offered) - 2, max(offered) + 3)
            assert {o for o in candidates if state._is_chance_outcome(o)} == offered
            outcomes = state.chance_outcomes()
            values, cumulative = state._chance_distribution()
            assert list(values) == [o for o, _ in outcomes]
            assert list(cumulative) == list(accumulate(p for _, p in outcomes))
        for seat in state.acting_players():
            legal = copy.deepcopy(state).legal_actions(seat)
            candidates = {-1, game.info.num_actions, *range(legal[0] - 3, legal[-1] + 4)}
            assert {a for a in candidates if state._is_legal(seat, a)} == set(legal)
            assert state.legal_actions(seat) == legal
            assert {a for a in candidates if state._is_legal(seat, a)} == set(legal)
            state.legal_actions(seat).clear()  # a caller may change its list
            assert state.legal_actions(seat) == legal


def test_every_chance_outcome_has_its_own_label(game: Game) -> None:
    """Labels are the game's own words (not the fallback "outcome N"), one per outcome of a node."""
    for seed in SEEDS[:2]:
        for state in walk(game, seed):
            if state.kind is NodeKind.CHANCE:
                outcomes = [o for o, _ in state.chance_outcomes()]
                labels = [state.chance_label(o) for o in outcomes]
                assert all(isinstance(label, str) and label for label in labels)
                fallbacks = [f"outcome {o}" for o in outcomes]
                assert not set(labels) & set(fallbacks), f"the game does not label its outcomes: {labels}"
                assert len(set(labels)) == len(labels), f"two outcomes share a label: {labels}"


def test_chance_label_refuses_decision_nodes_and_outcomes_not_offered(game: Game) -> None:
    states = walk(game, SEEDS[0])  # every game deals or rolls before its first decision
    chance = next(s for s in states if s.kind is NodeKind.CHANCE)
    offered = [o for o, _ in chance.chance_outcomes()]
    missing = max(offered) + 1
    with pytest.raises(ValueError, match=rf"chance outcome {missing} is not possible here; possible: \["):
        chance.chance_label(missing)
    decision = next(s for s in states if s.kind is NodeKind.DECISION)
    wrong_node = r"chance_label\(\) needs a chance node, but this is a decision node"
    with pytest.raises(ValueError, match=wrong_node):
        decision.chance_label(offered[0])


def test_observations_are_json_for_every_seat(game: Game) -> None:
    for seed in SEEDS:
        for state in walk(game, seed):
            for seat in range(game.num_players):
                observation = state.observation(seat)
                assert isinstance(observation, dict)
                assert json.loads(json.dumps(observation)) == observation
    with pytest.raises(IllegalActionError):
        game.initial_state().observation(game.num_players)


def test_returns_and_ranks_agree(game: Game) -> None:
    for seed in SEEDS:
        final = random_playthrough(game, seed).final
        returns, ranks = final.returns(), final.ranks()
        assert len(returns) == len(ranks) == game.num_players
        for i in range(game.num_players):
            assert ranks[i] == 1 + sum(r < ranks[i] for r in ranks), "ranks are competition ranks"
            for j in range(game.num_players):
                if returns[i] > returns[j]:
                    assert ranks[i] < ranks[j], "a higher score never ranks lower"


def test_replay_reproduces_the_final_state(game: Game) -> None:
    for seed in SEEDS:
        playthrough = random_playthrough(game, seed)
        assert replay(game.initial_state(), playthrough.steps) == playthrough.final


def test_same_seed_same_game_whatever_the_global_random_state(game: Game) -> None:
    def steps_with_noise(noise_seed: int) -> tuple[Step, ...]:
        random.seed(noise_seed)
        rng = random.Random(11)
        agents = [RandomAgent(random.Random(seat)) for seat in range(game.num_players)]
        state, steps = game.initial_state(), []
        while state.kind is not NodeKind.TERMINAL:
            random.random()  # disturb the global generator between steps
            sub = play(state, agents, rng, max_steps=1)
            state, steps = sub.final, steps + list(sub.steps)
        return tuple(steps)

    assert steps_with_noise(1) == steps_with_noise(2)


def test_no_hidden_information_leaks(game: Game) -> None:
    """Redraw one seat's secrets: no other seat's observation may change."""
    rng = random.Random(3)
    changed = 0
    for seed in SEEDS:
        for state in walk(game, seed):
            for owner in range(game.num_players):
                others = [s for s in range(game.num_players) if s != owner]
                redrawn = state.resample(others, rng)
                changed += redrawn != state
                for seat in others:
                    assert redrawn.observation(seat) == state.observation(seat), (
                        f"seat {seat} sees a change in seat {owner}'s secrets"
                    )
    if game.info.hidden_info:
        assert changed, "resample never redrew anything: the leak check would be empty"
    else:
        assert not changed


def test_resample_agrees_with_the_observation(game: Game) -> None:
    """A determinization for seat i keeps what i sees, legal actions and node kind included."""
    rng = random.Random(4)
    for seed in SEEDS:
        for state in walk(game, seed):
            for seat in range(game.num_players):
                sample = state.resample([seat], rng)
                assert sample.observation(seat) == state.observation(seat)
                assert sample.kind is state.kind
                assert sample.acting_players() == state.acting_players()
                assert sample.legal_actions(seat) == state.legal_actions(seat)


def test_sample_state_agrees_with_the_observation(game: Game) -> None:
    """A state rebuilt from one seat's observation gives that seat the same view and choices."""
    rng = random.Random(6)
    for seed in SEEDS:
        for state in walk(game, seed):
            if state.kind is NodeKind.TERMINAL:
                continue
            for seat in range(game.num_players):
                observation = state.observation(seat)
                sample = game.sample_state(observation, rng)
                assert sample.observation(seat) == observation
                assert sample.kind is state.kind
                assert sample.acting_players() == state.acting_players()
                assert sample.legal_actions(seat) == state.legal_actions(seat)


def chance_runs(game: Game, seed: int) -> Iterator[tuple[State, list[int]]]:
    """Each run of chance steps between two decisions of a seeded random playout: the state
    before the run and the outcomes drawn in it."""
    state, rng = game.initial_state(), random.Random(seed)
    while state.kind is not NodeKind.TERMINAL:
        if state.kind is NodeKind.DECISION:
            state = state.apply({s: rng.choice(state.legal_actions(s)) for s in state.acting_players()})
            continue
        start, outcomes = state, []
        while state.kind is NodeKind.CHANCE:
            outcomes.append(sample_chance(state, rng))
            state = state.apply_chance(outcomes[-1])
        yield start, outcomes


def run_through(start: State, outcomes: list[int]) -> list[State] | None:
    """The states of a chance run (the one after it included), or None when the outcomes are
    not a run from `start`: one is not possible, or the run ends sooner or later."""
    states = [start]
    for outcome in outcomes:
        state = states[-1]
        if state.kind is not NodeKind.CHANCE or outcome not in dict(state.chance_outcomes()):
            return None
        states.append(state.apply_chance(outcome))
    return None if states[-1].kind is NodeKind.CHANCE else states


def labels_by_viewer(states: list[State], outcomes: list[int]) -> dict[int | None, list[str]]:
    """The run's chance labels as each seat, and a spectator (None), may read them."""
    views = chance_views(states[:-1], [Step(chance=o) for o in outcomes])
    viewers = [*range(states[0].num_players), None]
    return {viewer: [view.label_for(viewer) for view in views if view] for viewer in viewers}


def other_runs(game: Game, per_run: int = 3) -> Iterator[tuple[list[State], list[int], list[State], list[int]]]:
    """Pairs of chance runs from one state, both possible and both ending alike, that differ in
    one outcome (another card dealt to seat 0) or in two outcomes drawn in the other order (a
    card of seat 0's and one of seat 1's changing places)."""
    rng = random.Random(9)
    for start, outcomes in chance_runs(game, SEEDS[0]):
        states = run_through(start, outcomes)
        assert states is not None
        for other in _first_runs(start, _changed(states, outcomes, rng), per_run):
            yield states, outcomes, *other


def _changed(states: list[State], outcomes: list[int], rng: random.Random) -> Iterator[list[int]]:
    """Outcome lists that differ from `outcomes` by one outcome or by one swap, in random order."""
    n = len(outcomes)
    changes = [(i, j) for i in range(n) for j in range(i + 1, n) if outcomes[i] != outcomes[j]]
    changes += [(i, -1 - k) for i in range(n) for k, _ in enumerate(states[i].chance_outcomes())]
    rng.shuffle(changes)
    for i, j in changes:
        other = list(outcomes)
        if j >= 0:
            other[i], other[j] = other[j], other[i]
        else:
            other[i] = states[i].chance_outcomes()[-1 - j][0]
        if other != outcomes:
            yield other


def _first_runs(start: State, candidates: Iterator[list[int]], wanted: int) -> Iterator[tuple[list[State], list[int]]]:
    """Up to `wanted` of the candidates that are runs from `start` (a few tries each)."""
    found = 0
    for _, other in zip(range(10 * wanted), candidates):
        others = run_through(start, other)
        if others is not None:
            found += 1
            yield others, other
        if found == wanted:
            return


def test_a_seat_is_told_of_a_chance_outcome_exactly_when_it_sees_it(game: Game) -> None:
    """Two chance runs that a seat cannot tell apart (the same observation after them) must read
    alike in that seat's log (in any order: the order of a hand's cards is not seen), and in a
    spectator's; runs it can tell apart must not.

    So a card dealt face down to one seat, labelled as public, fails: the other seats would
    read which card it was while their observations cannot say."""
    compared = 0
    for states, outcomes, others, other in other_runs(game):
        compared += 1
        mine, theirs = labels_by_viewer(states, outcomes), labels_by_viewer(others, other)
        same = [states[-1].observation(s) == others[-1].observation(s) for s in range(game.num_players)]
        for seat in range(game.num_players):
            if same[seat]:
                assert sorted(mine[seat]) == sorted(theirs[seat]), (
                    f"seat {seat} reads outcomes it cannot see: {mine[seat]} / {theirs[seat]}")
            else:
                assert mine[seat] != theirs[seat], f"seat {seat} sees a difference its log hides: {mine[seat]}"
        if any(same):
            assert sorted(mine[None]) == sorted(theirs[None]), f"a spectator reads hidden outcomes: {mine[None]}"
    assert compared, "no chance run had another possible run: the check would be empty"


def test_a_seat_is_told_of_an_action_exactly_when_it_sees_it(game: Game) -> None:
    """Two actions of one seat, which matter to it, that another seat cannot tell apart (the same
    observation after them) must read alike in that seat's log, and a spectator's; actions it
    can tell apart must not. So "give G3" to one opponent, shown to a third seat, fails."""
    rng, compared = random.Random(10), 0
    for state in walk(game, SEEDS[0]):
        if state.kind is not NodeKind.DECISION:
            continue
        joint = {s: rng.choice(state.legal_actions(s)) for s in state.acting_players()}
        for seat, other in _other_actions(state, joint, rng):
            after, after_other = state.apply(joint), state.apply({**joint, seat: other})
            if after.observation(seat) == after_other.observation(seat):
                continue  # the two are the same move to the seat itself (nothing to hide)
            compared += 1
            same = [after.observation(v) == after_other.observation(v) for v in range(game.num_players)]
            for viewer in [*range(game.num_players), None]:
                labels = {seen_action_label(state, game, seat, a, viewer) for a in (joint[seat], other)}
                cannot_tell = any(same) if viewer is None else same[viewer]  # a spectator knows least
                if cannot_tell or viewer is not None:  # a spectator need not see all a seat sees
                    assert (len(labels) == 1) == cannot_tell, f"{viewer} reads {labels} (same view: {cannot_tell})"
    assert compared, "no decision had two actions to compare: the check would be empty"


def _other_actions(state: State, joint: dict[int, int], rng: random.Random) -> Iterator[tuple[int, int]]:
    """For each acting seat, up to two legal actions other than the one in `joint`."""
    for seat in state.acting_players():
        others = [a for a in state.legal_actions(seat) if a != joint[seat]]
        for other in rng.sample(others, min(2, len(others))):
            yield seat, other
