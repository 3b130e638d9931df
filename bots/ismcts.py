"""Information-Set Monte Carlo Tree Search: a search bot for every game, through the engine contract.

Per decision the bot repeats, within its budget, one *simulation*:

1. **Determinize.** `game.sample_state(observation, rng)` draws a full state consistent with what
   this seat sees (other hands, draw piles: everything hidden is drawn again each time).
2. **Select.** Walk down the tree by UCB1. The tree is keyed by *information*, not by state: a node
   is `(decisions since the root, acting seat, this seat's observation)`, so one node pools every
   determinization this seat cannot tell apart (single-observer ISMCTS, Cowling, Powley & Whitehouse
   2012). Opponents' nodes share that key too, so an opponent's statistics are pooled over the hands
   it might hold; because its legal actions then vary between determinizations, UCB counts for each
   action how often it was *available*, not how often the node was visited.
   Chance nodes are sampled (they are not in the tree: what chance reveals changes the observation
   and so the key). A simultaneous node is decoupled UCT: every acting seat picks from its own node.
   Progressive widening: a node tries a new action only while fewer than `widen * sqrt(visits)`
   have been tried, so a node with dozens of bids does not spend a small budget trying each once.
3. **Expand** the first decision whose node is new, then **roll out**: every seat plays the game's
   heuristic (bots/heuristic/), or uniformly at random when the game has none, chance by its odds,
   to the end or for `depth` decisions, after which the game's `estimate_returns(observation)`
   stands in for the final scores.
4. **Back up** each seat's utility into the nodes where that seat chose.

**Root: sequential halving over shared worlds** (default, `root=halving`). The root is not
chosen by UCB: the budget is split into `ceil(log2(actions))` rounds; in each, every surviving
root action is simulated in the same worlds (one determinization and one seed for every random
choice after it), then the worse half is dropped (Karnin, Koren & Somekh 2013, as in Gumbel
MuZero's root). Playing every action in the same worlds makes the comparison *paired*: the luck of
the dice or the deal is the same on both sides of a difference, so a small budget can tell moves
apart that independent samples could not. Below the root the simulations are ISMCTS as above.
With `root=ucb` the root is one more UCB1 node and the most-visited action is played.

Where the game has a heuristic, its move at each new node is tried first and favoured by a
progressive bias `prior / (1 + visits)` that fades as the move's own results come in; at the root
the heuristic's move survives every halving, and the search plays its best action instead only
when the mean paired gain over the heuristic's move exceeds `trust` standard errors: the search
starts from the heuristic and departs from it on evidence, not on the noise of a small budget.

**Utility of a finished game for a seat** (in [0, 1]): `(1 - sw) * rank_score + sw * margin`.
`rank_score` is the share of the other seats this seat beat, a tie counting one half: exactly how
the arena's Elo counts a k-player result (pairwise by rank), so the bot maximises what it is rated
on. `margin` is `(1 + tanh(gap / scale)) / 2`, `gap` the seat's points minus the best other seat's
and `scale` a tenth of the mean absolute score plus one: a small pull (`sw`, 0.1 by default)
towards winning by more and losing by less, which gives playouts a gradient where the rank alone
is flat.

**Parameters** (spec `ismcts:sims=500,c=1.4,ms=200`):

- `sims` simulations per decision (default 100 when `ms` is not given; every root action gets at
  least one, so a budget below the number of legal actions runs one per action);
- `ms` milliseconds per decision; with both, whichever runs out first. With `ms` alone the number
  of simulations depends on the machine, so only a `sims` budget is reproducible from the seed;
- `c` the UCB exploration constant (default 0.7; utilities lie in [0, 1]);
- `sw` the weight of the margin in the utility (default 0.1);
- `rollout` `heuristic` (default where the game has one) or `random`;
- `prior` the bias towards the heuristic's move (default 1.0; 0 turns it off);
- `depth` rollout decisions before the estimate stands in for the end (default 10 where the game
  has `estimate_returns`; 0 plays to the end);
- `widen` the progressive-widening factor (default 1.0; 0 tries every action first);
- `trust` how many standard errors the search's best move must beat the heuristic's move by to
  be played instead (default 2.0; 0 = always the search's best move);
- `root` `halving` (default) or `ucb`, how the root action is chosen (above);
- `tree` 1 to search below the root as above, 0 to evaluate each root action by playouts alone
  (the heuristic plays every later decision). The default is the game's: a heuristic module may
  set `SEARCH_DEFAULTS = {"tree": 0}` where playouts alone measured stronger for the same time
  (BENCHMARKS.md, "Bot strength"); otherwise 1.

A decision with one legal action is answered at once, without search.
"""

from __future__ import annotations

import json
import math
import random
import statistics
import time
from collections.abc import Callable
from typing import Any

from bots.base import Bot
from bots.heuristic import has_heuristic, heuristic_class, heuristic_module
from engine.core import Game, NodeKind, State, ranks_from_scores, sample_chance

DEFAULT_SIMS = 100
DEFAULT_DEPTH = 10  # rollout decisions before the estimate stands in for the end (when there is one)
DEFAULT_PRIOR = 1.0  # progressive bias towards the heuristic's move, in utility units


class Node:
    """Statistics of one information set: per action, visits, total utility and availability."""

    __slots__ = ("visits", "total", "squares", "available", "hint", "bonus", "count")

    def __init__(self, hint: int | None = None, bonus: float = 0.0) -> None:
        self.visits: dict[int, int] = {}
        self.total: dict[int, float] = {}
        self.squares: dict[int, float] = {}
        self.available: dict[int, int] = {}
        self.hint = hint  # the heuristic's choice here, if any: tried first, favoured by `bonus`
        self.bonus = bonus
        self.count = 0  # selections made at this node

    def select(self, legal: list[int], c: float, rng: random.Random, widen: float) -> int:
        """UCB1 over the actions legal in this determinization.

        The hint is tried first. A new action (at random) is tried while fewer than
        `widen * sqrt(selections)` actions have been tried (progressive widening: a node with
        dozens of actions does not spend a small budget trying each once); `widen` 0 tries
        every action before repeating any.
        """
        self.count += 1
        for action in legal:
            self.available[action] = self.available.get(action, 0) + 1
        if self.hint in legal and self.hint not in self.visits:
            return self.hint
        tried = [a for a in legal if a in self.visits]
        room = not widen or len(self.visits) < max(1.0, widen * math.sqrt(self.count))
        if len(tried) < len(legal) and (room or not tried):
            return rng.choice([a for a in legal if a not in self.visits])
        return max(tried, key=lambda a: self._ucb(a, c))

    def _ucb(self, action: int, c: float) -> float:
        """UCB1, plus a progressive bias `bonus / (1 + visits)` towards the hint (Chaslot et al.
        2008): the heuristic's move is explored much more at first, and the bias fades as its
        own results come in."""
        visits = self.visits[action]
        mean = self.total[action] / visits
        bias = self.bonus / (1 + visits) if action == self.hint else 0.0
        return mean + c * math.sqrt(math.log(self.available[action]) / visits) + bias

    def best(self, legal: list[int], trust: float) -> int:
        """The most-visited action, unless the hint holds its own.

        With a hint, the search overrules the heuristic only when the most-visited action's mean
        beats the hint's by more than `trust` standard errors of the difference: a small budget
        cannot tell near-equal moves apart, and picking among them by noise loses to the heuristic.
        """
        def score(action: int) -> tuple[int, bool, float]:
            visits = self.visits.get(action, 0)
            return visits, action == self.hint, self.total.get(action, 0.0) / max(visits, 1)
        choice = max(legal, key=score)
        hint = self.hint
        if hint is None or hint == choice or hint not in legal or self.visits.get(hint, 0) < 2:
            return choice
        gap = self._mean(choice) - self._mean(hint)
        spread = math.sqrt(self._variance_of_mean(choice) + self._variance_of_mean(hint))
        return choice if gap > trust * spread else hint

    def _mean(self, action: int) -> float:
        return self.total[action] / self.visits[action]

    def _variance_of_mean(self, action: int) -> float:
        n = self.visits[action]
        if n < 2:
            return 0.25  # the widest a [0, 1] utility can spread
        mean = self._mean(action)
        return max(self.squares[action] / n - mean * mean, 0.0) / (n - 1)

    def update(self, action: int, utility: float) -> None:
        self.visits[action] = self.visits.get(action, 0) + 1
        self.total[action] = self.total.get(action, 0.0) + utility
        self.squares[action] = self.squares.get(action, 0.0) + utility * utility


def utilities(returns: list[float], ranks: list[int], score_weight: float) -> list[float]:
    """Each seat's utility in [0, 1] from ranks (pairwise, ties half) and its margin in points."""
    n = len(ranks)
    scale = 1.0 + 0.1 * sum(abs(r) for r in returns) / n  # a typical gap, in the game's points
    result = []
    for seat in range(n):
        beaten = sum(ranks[seat] < other for other in ranks)
        tied = sum(ranks[seat] == other for other in ranks) - 1
        rank_score = (beaten + 0.5 * tied) / (n - 1) if n > 1 else 1.0
        best_other = max((r for s, r in enumerate(returns) if s != seat), default=returns[seat])
        margin = 0.5 + 0.5 * math.tanh((returns[seat] - best_other) / scale)
        result.append((1 - score_weight) * rank_score + score_weight * margin)
    return result


def observation_key(observation: dict[str, Any]) -> str:
    """A canonical text of an observation, so equal information sets share one node."""
    return json.dumps(observation, sort_keys=True, separators=(",", ":"))


class IsmctsBot(Bot):
    """Single-observer ISMCTS, guided by the game's heuristic where it has one (module docstring)."""

    name = "ismcts"

    def __init__(
        self,
        game: Game,
        seat: int,
        rng: random.Random,
        sims: int | None = None,
        ms: float | None = None,
        c: float = 0.7,
        sw: float = 0.1,
        rollout: str | None = None,
        prior: float | None = None,
        depth: int | None = None,
        widen: float = 1.0,
        trust: float = 2.0,
        root: str = "halving",
        tree: int | None = None,
        **params: Any,
    ) -> None:
        super().__init__(game, seat, rng, **params)
        self.sims, self.ms = _check_budget(sims, ms)
        self.c = _check_number("c", c, low=0.0)
        self.score_weight = _check_number("sw", sw, low=0.0, high=1.0)
        self.widen = _check_number("widen", widen, low=0.0)
        self.trust = _check_number("trust", trust, low=0.0)
        if root not in ("halving", "ucb"):
            raise ValueError(f"ismcts parameter root={root!r} must be halving or ucb")
        self.root = root
        tree = _search_defaults(game).get("tree", 1) if tree is None else tree
        if tree not in (0, 1) or isinstance(tree, bool):
            raise ValueError(f"ismcts parameter tree={tree!r} must be 1 (search below the root) or 0 (playouts only)")
        self.tree = bool(tree)
        self.guides = _guides(game, rng, rollout, prior)
        self.rollout = "heuristic" if self.guides and rollout != "random" else "random"
        self.prior = 0 if prior is None and not self.guides else (DEFAULT_PRIOR if prior is None else float(prior))
        self.estimate = _estimator(game, depth)
        self.depth = 0 if self.estimate is None else (DEFAULT_DEPTH if depth is None else depth)
        self.last_simulations = 0  # how many simulations the last decision ran (for benchmarks)

    def act(self, observation: dict[str, Any], legal_actions: list[int]) -> int:
        if len(legal_actions) == 1:
            self.last_simulations = 0
            return legal_actions[0]
        deadline = None if self.ms is None else time.perf_counter() + self.ms / 1000
        if self.root == "halving":
            return self._act_by_halving(observation, legal_actions, deadline)
        return self._act_by_ucb(observation, legal_actions, deadline)

    def _act_by_ucb(self, observation: dict[str, Any], legal: list[int], deadline: float | None) -> int:
        """Root by UCB1 like every other node; play the most-visited action (or the hint)."""
        tree: dict[tuple[int, int, str], Node] = {}
        done = 0
        while (self.sims is None or done < self.sims) and (deadline is None or time.perf_counter() < deadline):
            self._simulate(tree, self.game.sample_state(observation, self.rng), self.rng)
            done += 1
        self.last_simulations = done
        root = tree.get((0, self.seat, observation_key(observation)))
        if root is None:  # the deadline came before one simulation finished
            return self._fallback(observation, legal)
        return root.best(legal, self.trust)

    def _act_by_halving(self, observation: dict[str, Any], legal: list[int], deadline: float | None) -> int:
        """Sequential halving at the root over shared worlds (module docstring, "Root")."""
        tree: dict[tuple[int, int, str], Node] = {}
        hint = self._hint(self.seat, observation, legal)
        arms, worlds = list(legal), _Worlds(self.game, observation, self.rng)
        values: dict[int, list[float]] = {action: [] for action in arms}
        rounds = max(1, math.ceil(math.log2(len(arms))))
        done = 0
        for round_ in range(rounds):
            left = rounds - round_
            round_end = None if deadline is None else time.perf_counter() + (deadline - time.perf_counter()) / left
            # Worlds per arm this round: its share of what is left; at least one in the first
            # round (every move needs a value), none when a small budget is spent: the halvings
            # then go by the values already in.
            share = 1 if self.sims is None else (self.sims - done) // left // len(arms)
            target = len(values[arms[0]]) + (max(1, share) if round_ == 0 else share)
            while self.sims is None or len(values[arms[0]]) < target:
                if round_end is not None and time.perf_counter() >= round_end:
                    break
                state, seed = worlds.get(len(values[arms[0]]))
                for action in arms:  # the same world and chance seed for every arm: paired results
                    values[action].append(self._evaluate(tree, state, random.Random(seed), action))
                done += len(arms)
            arms = _halve(arms, values, hint)
        self.last_simulations = done
        return self._choose(values, arms, hint, observation, legal)

    def _hint(self, seat: int, observation: dict[str, Any], legal: list[int]) -> int | None:
        """The heuristic's action for `seat` (the prior of a new node), when there is one."""
        if not self.guides or not self.prior:
            return None
        return self.guides[seat].act(observation, legal)

    def _fallback(self, observation: dict[str, Any], legal: list[int]) -> int:
        """The move when the deadline came before any simulation finished: the heuristic's, or random."""
        hint = self._hint(self.seat, observation, legal)
        return self.rng.choice(legal) if hint is None else hint

    def _choose(self, values: dict[int, list[float]], arms: list[int], hint: int | None,
                observation: dict[str, Any], legal: list[int]) -> int:
        """The best surviving arm, unless the heuristic's move holds its own (paired test)."""
        worlds = min(len(values[action]) for action in arms)
        if worlds == 0:
            return self._fallback(observation, legal)
        best = max(arms, key=lambda action: (statistics.fmean(values[action][:worlds]), action == hint))
        if hint is None or best == hint:
            return best
        gaps = [b - h for b, h in zip(values[best][:worlds], values[hint][:worlds])]
        if worlds < 2:
            return hint
        spread = statistics.stdev(gaps) / math.sqrt(worlds)
        return best if statistics.fmean(gaps) > self.trust * spread else hint

    def _evaluate(self, tree: dict[tuple[int, int, str], Node], state: State, rng: random.Random,
                  root_action: int) -> float:
        """This seat's utility of playing `root_action` in one world: a simulation through the tree,
        or with `tree=0` a playout straight after the root (the other seats at the root included)."""
        if self.tree:
            return self._simulate(tree, state, rng, root_action)[self.seat]
        joint = {seat: root_action if seat == self.seat else self._rollout_action(state, seat, rng)
                 for seat in state.acting_players()}
        return utilities(*self._rollout(state.apply(joint), rng), self.score_weight)[self.seat]

    def _simulate(self, tree: dict[tuple[int, int, str], Node], state: State, rng: random.Random,
                  root_action: int | None = None) -> list[float]:
        """One determinized simulation: select and expand in the tree, roll out, back up.

        Every random choice (chance, untried actions, playouts) draws on `rng`. With `root_action`,
        this seat plays it at the root instead of choosing there. Returns every seat's utility.
        """
        path: list[tuple[Node, int, int]] = []
        depth, expanded = 0, False
        while state.kind is not NodeKind.TERMINAL and not expanded:
            if state.kind is NodeKind.CHANCE:
                state = state.apply_chance(sample_chance(state, rng))
                continue
            mine = state.observation(self.seat)
            key = observation_key(mine)
            joint = {}
            for seat in state.acting_players():
                legal = state.legal_actions(seat)
                if depth == 0 and seat == self.seat and root_action is not None:
                    joint[seat] = root_action
                    continue
                if len(legal) == 1:  # forced: nothing to learn, no node needed
                    joint[seat] = legal[0]
                    continue
                node = tree.get((depth, seat, key))
                if node is None:
                    seen = mine if seat == self.seat else state.observation(seat)
                    node = tree[(depth, seat, key)] = Node(self._hint(seat, seen, legal), self.prior)
                    expanded = True
                joint[seat] = node.select(legal, self.c, rng, self.widen)
                path.append((node, seat, joint[seat]))
            state = state.apply(joint)
            depth += 1
        values = utilities(*self._rollout(state, rng), self.score_weight)
        for node, seat, action in path:
            node.update(action, values[seat])
        return values

    def _rollout(self, state: State, rng: random.Random) -> tuple[list[float], list[int]]:
        """Returns and ranks at the end of a playout by the rollout policy (chance by its odds).

        With a cut-off `depth`, the playout stops after that many decisions and the game's
        estimate of the final returns (from this seat's observation) stands in for the end.
        """
        decisions = 0
        while state.kind is not NodeKind.TERMINAL:
            if state.kind is NodeKind.CHANCE:
                state = state.apply_chance(sample_chance(state, rng))
                continue
            if self.depth and decisions >= self.depth:
                assert self.estimate is not None
                estimate = self.estimate(state.observation(self.seat))
                return estimate, ranks_from_scores(estimate)
            state = state.apply({s: self._rollout_action(state, s, rng) for s in state.acting_players()})
            decisions += 1
        return state.returns(), state.ranks()

    def _rollout_action(self, state: State, seat: int, rng: random.Random) -> int:
        legal = state.legal_actions(seat)
        if len(legal) == 1 or self.rollout == "random":
            return legal[0] if len(legal) == 1 else rng.choice(legal)
        return self.guides[seat].act(state.observation(seat), legal)


class _Worlds:
    """The determinizations of one decision, drawn on demand: world i is a state sampled from the
    observation and a seed for every random choice after it, the same for every root action."""

    def __init__(self, game: Game, observation: dict[str, Any], rng: random.Random) -> None:
        self.game, self.observation, self.rng = game, observation, rng
        self.drawn: list[tuple[State, int]] = []

    def get(self, index: int) -> tuple[State, int]:
        while len(self.drawn) <= index:
            self.drawn.append((self.game.sample_state(self.observation, self.rng), self.rng.getrandbits(64)))
        return self.drawn[index]


def _halve(arms: list[int], values: dict[int, list[float]], hint: int | None) -> list[int]:
    """The better half of the arms by mean utility over their shared worlds; the hint always stays
    (the final choice compares the best arm with it)."""
    if len(arms) <= 1 or not values[arms[0]]:
        return arms
    ranked = sorted(arms, key=lambda action: -statistics.fmean(values[action]))
    kept = ranked[: math.ceil(len(arms) / 2)]
    return kept + [hint] if hint in arms and hint not in kept else kept


def _search_defaults(game: Game) -> dict[str, Any]:
    """Parameter defaults the game's heuristic module sets for the search (`SEARCH_DEFAULTS`)."""
    if not has_heuristic(game.info.id):
        return {}
    return dict(getattr(heuristic_module(game.info.id), "SEARCH_DEFAULTS", {}))


def _estimator(game: Game, depth: Any) -> Callable[[dict[str, Any]], list[float]] | None:
    """The game's estimate of final returns from an observation, when its heuristic has one."""
    if depth is not None and (isinstance(depth, bool) or not isinstance(depth, int) or depth < 0):
        raise ValueError(f"ismcts parameter depth={depth!r} must be a whole number of decisions >= 0")
    module = heuristic_module(game.info.id) if has_heuristic(game.info.id) else None
    estimate = getattr(module, "estimate_returns", None)
    if depth and estimate is None:
        raise ValueError(f"ismcts: depth needs an estimate of returns; {game.info.id} has none")
    return estimate


def _guides(game: Game, rng: random.Random, rollout: Any, prior: Any) -> list[Bot]:
    """One heuristic player per seat when the game has a heuristic and the search may use it."""
    if rollout not in (None, "random", "heuristic"):
        raise ValueError(f"ismcts parameter rollout={rollout!r} must be random or heuristic")
    if prior is not None and (isinstance(prior, bool) or not isinstance(prior, (int, float)) or prior < 0):
        raise ValueError(f"ismcts parameter prior={prior!r} must be a number >= 0 (the bias towards the heuristic)")
    if not has_heuristic(game.info.id):
        if rollout == "heuristic" or prior:
            raise ValueError(f"ismcts: rollout=heuristic and prior need a heuristic; {game.info.id} has none")
        return []
    if rollout == "random" and prior == 0:
        return []
    player = heuristic_class(game.info.id)
    return [player(game, seat, rng) for seat in range(game.num_players)]


def _check_budget(sims: Any, ms: Any) -> tuple[int | None, float | None]:
    """Resolve the budget: simulations, milliseconds or both; 100 simulations when neither is set."""
    if ms is not None:
        ms = _check_number("ms", ms, low=1.0)
    if sims is None:
        return (DEFAULT_SIMS if ms is None else None), ms
    if isinstance(sims, bool) or not isinstance(sims, int) or sims < 1:
        raise ValueError(f"ismcts parameter sims={sims!r} must be a whole number of simulations >= 1")
    return sims, ms


def _check_number(name: str, value: Any, low: float, high: float | None = None) -> float:
    """A number within bounds, or a ValueError that says which parameter and what is valid."""
    valid = isinstance(value, (int, float)) and not isinstance(value, bool)
    if not valid or value < low or (high is not None and value > high):
        bounds = f"between {low:g} and {high:g}" if high is not None else f">= {low:g}"
        raise ValueError(f"ismcts parameter {name}={value!r} must be a number {bounds}")
    return float(value)
