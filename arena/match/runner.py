"""run_match(): the one loop that drives a match from a seed to a MatchRecord.

Chance is sampled from a generator seeded by the match seed; each seat's bot gets a seed derived
from the match seed and the seat, so a match replays exactly from its record (always) or from its
seed (when every seat is a built-in bot).

A seat is played by a built-in bot (a spec such as "random") in this process, or by a registered
bot (its name) through the gateway; the loop asks both the same way (arena/match/seats.py). The acting
seats of a simultaneous decision are asked concurrently.

Faults are data (docs/protocol.md, "Faults"):
- a faulty decision (timeout, illegal action, malformed answer) is replaced by a uniformly random
  legal action and counts as a strike; `max_strikes` strikes forfeit the seat;
- a disconnect, or a launched bot that crashes or never connects, forfeits the seat at once;
- a forfeited seat is played out by the random bot and ranked after every seat that did not
  forfeit, so the other seats' game still counts; its termination and reason are recorded;
- an error inside the arena (the gateway unreachable, an engine or built-in bot exception)
  aborts the match: `MatchAborted` is raised with the partial record, which is never rated.
"""

from __future__ import annotations

import json
import logging
import random
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from typing import Any, cast

from arena.link.client import DEFAULT_ADDRESS, GatewayClient, GatewayError
from arena.match.clock import Clock, TimeControl
from arena.match.record import (
    FORFEIT_AT_ONCE,
    Fault,
    MatchAborted,
    MatchRecord,
    SeatOutcome,
    StepRecord,
    decode_log,
)
from arena.match.seats import Answer, BuiltinSeat, ConnectedSeat, Decision
from arena.match.seeds import derive_seed
from arena.outcomes import FaultKind, Termination
from arena.v1 import bot_pb2 as pb
from bots import is_builtin, make_bot
from engine import registry
from engine.core import Game, NodeKind, State, sample_chance

log = logging.getLogger("arena.match")


def run_match(
    game_id: str,
    bots: Sequence[str],
    seed: int,
    options: Mapping[str, Any] | None = None,
    *,
    chance_seed: int | None = None,
    time_control: TimeControl | None = None,
    max_strikes: int = 3,
    gateway: str | GatewayClient | None = None,
    connect_timeout_ms: int = 10_000,
    match_id: str | None = None,
    progress: Callable[[list[StepRecord]], None] | None = None,
    game_ref: str = "",
) -> MatchRecord:
    """Play one match (one bot spec or registered bot name per seat) and record it.

    `chance_seed` seeds the chance generator instead of the match seed: a tournament gives every
    seat rotation of a table the same one (duplicate play). Registered bots play through the
    gateway at `gateway` (an address, default 127.0.0.1:50051, or a GatewayClient) on
    `time_control`; each gets `connect_timeout_ms` to be connected (or launched) at the start.
    `progress(steps)` is called with the steps so far after every step (live watching,
    arena/match/live.py); it must be quick and must not raise. `game_ref` ("module:DESCRIPTION")
    is where the game is when it is not looked up by id in this process's registry (a match job
    carries it to the worker that plays it).
    Raises MatchAborted on an arena-side error; bad arguments raise ValueError/KeyError at once.
    """
    if max_strikes < 1:
        raise ValueError(f"max_strikes must be at least 1, not {max_strikes!r}")
    game = _game_of(game_id, game_ref)(len(bots), **dict(options or {}))
    run = _MatchRun(game, list(bots), seed, time_control or TimeControl(), max_strikes, match_id)
    chance_rng = random.Random(derive_seed(seed, "chance") if chance_seed is None else chance_seed)
    gone = False
    with _gateway_client(gateway, bots) as client:
        run.seat_players(client)
        try:
            run.open(connect_timeout_ms)
            run.play(chance_rng, progress)
        except Exception as error:  # noqa: BLE001 - an arena-side error aborts, never scores
            run.abort(error)
            gone = isinstance(error, GatewayError) and error.gone
        finally:
            run.close()
    if run.record.aborted:
        raise MatchAborted(run.record, gateway_gone=gone)
    return run.record


def _game_of(game_id: str, game_ref: str) -> type[Game]:
    """The Game class of a match: from its reference when it has one, else from the registry."""
    if not game_ref:
        return registry.game_class(game_id)
    description = registry.load(game_ref)
    if description.id != game_id:
        raise ValueError(f"game reference {game_ref!r} describes {description.id!r}, not {game_id!r}")
    return description.game


@contextmanager
def _gateway_client(gateway: str | GatewayClient | None, bots: Sequence[str]) -> Iterator[GatewayClient | None]:
    """The caller's client (left open), a new one for the match (closed after it), or none."""
    if gateway is not None and not isinstance(gateway, str):  # a GatewayClient, or a node's seats (arena/node/)
        yield gateway
    elif all(is_builtin(spec) for spec in bots):
        yield None
    else:
        with GatewayClient(gateway or DEFAULT_ADDRESS) as client:
            yield client


class _MatchRun:
    """The state of one match being played: seats, strikes, the record so far."""

    def __init__(self, game: Game, bots: list[str], seed: int, control: TimeControl, max_strikes: int,
                 match_id: str | None) -> None:
        self.game, self.seed, self.control, self.max_strikes = game, seed, control, max_strikes
        self.match_id = match_id or uuid.uuid4().hex
        self.record = MatchRecord(game.info.id, game.ruleset, dict(game.options), seed, [SeatOutcome(b) for b in bots])
        self.players: list[Any] = []
        self.fallback = [random.Random(derive_seed(seed, "fallback", s)) for s in range(len(bots))]
        self.forfeited: set[int] = set()
        self.replaced: dict[int, Any] = {}  # forfeited seats' own players, still told how it ended
        self._pool: ThreadPoolExecutor | None = None

    def seat_players(self, client: GatewayClient | None) -> None:
        """Built-in bots now (bad specs raise at once); registered bots through the gateway."""
        for seat, spec in enumerate(self.record.seats):
            if is_builtin(spec.bot):
                bot = make_bot(spec.bot, self.game, seat, derive_seed(self.seed, "bot", seat))
                self.players.append(BuiltinSeat(bot))
            else:
                assert client is not None
                self.players.append(ConnectedSeat(client, spec.bot, self.game, Clock(self.control)))
        if sum(isinstance(p, ConnectedSeat) for p in self.players) > 1:
            self._pool = ThreadPoolExecutor(len(self.players), thread_name_prefix="arena-seat")

    def open(self, connect_timeout_ms: int) -> None:
        """Get every connected seat's bot ready; one that cannot be forfeits before the first move."""
        seats = [s for s, p in enumerate(self.players) if isinstance(p, ConnectedSeat)]
        starts = {s: self._start_message(s) for s in seats}
        answers = self._map(lambda s: self.players[s].open(starts[s], connect_timeout_ms), seats)
        for seat, answer in zip(seats, answers):
            self.record.seats[seat].version = self.players[seat].declared_version
            if answer is not None:
                self._fault(seat, 0, answer)

    def play(self, chance_rng: random.Random, progress: Callable[[list[StepRecord]], None] | None) -> None:
        state = self.game.initial_state()
        while state.kind is not NodeKind.TERMINAL:
            if state.kind is NodeKind.CHANCE:
                step = StepRecord(chance=sample_chance(state, chance_rng))
                state = state.apply_chance(step.chance)
            else:
                step = self._decide(state)
                state = state.apply(step.actions)  # type: ignore[arg-type]
            self.record.steps.append(step)
            if progress is not None:
                progress(self.record.steps)
        self.record.returns = state.returns()
        self.record.ranks = forfeit_ranks(state.ranks(), self.forfeited)

    def _decide(self, state: State) -> StepRecord:
        """Ask every acting seat (connected ones concurrently); faults become random legal actions."""
        step = len(self.record.steps)
        acting = list(state.acting_players())
        answers = self._map(lambda s: self.players[s].decide(Decision(self.match_id, step, state, s)), acting)
        actions, elapsed = {}, {}
        for seat, answer in zip(acting, answers):
            legal = state.legal_actions(seat)
            if answer.fault is None and answer.action not in legal:
                answer = Answer(None, answer.elapsed_ms, FaultKind.ILLEGAL_ACTION,
                                f"answered action {answer.action!r}, which is not among the {len(legal)} legal actions")
            if answer.fault is not None:
                self._fault(seat, step, answer)
                answer.action = self.fallback[seat].choice(legal)
            actions[seat], elapsed[seat] = answer.action, answer.elapsed_ms
        return StepRecord(actions=actions, elapsed_ms=elapsed)

    def _map(self, ask: Any, seats: list[int]) -> list[Any]:
        """`ask(seat)` for every seat; concurrently when more than one connected seat is asked."""
        connected = [s for s in seats if isinstance(self.players[s], ConnectedSeat)]
        if self._pool is None or len(connected) < 2:
            return [ask(s) for s in seats]
        futures = {s: self._pool.submit(ask, s) for s in connected}
        return [futures[s].result() if s in futures else ask(s) for s in seats]

    def _fault(self, seat: int, step: int, answer: Answer) -> None:
        """Record a strike; forfeit the seat when it is fatal or one strike too many."""
        outcome = self.record.seats[seat]
        assert answer.fault is not None
        outcome.faults.append(Fault(step, answer.fault, answer.reason))
        log.info("match %s seat %d (%s): %s: %s", self.match_id, seat, outcome.bot, answer.fault, answer.reason)
        if seat in self.forfeited:
            return
        if answer.fault in FORFEIT_AT_ONCE or len(outcome.faults) >= self.max_strikes:
            self._forfeit(seat, answer.fault, answer.reason)

    def _forfeit(self, seat: int, fault: FaultKind, reason: str) -> None:
        outcome = self.record.seats[seat]
        strikes = len(outcome.faults)
        if fault not in FORFEIT_AT_ONCE:
            reason = f"{strikes} faulty decisions (max {self.max_strikes}); last: {reason}"
        outcome.termination, outcome.reason = Termination(fault), f"{reason}; the random bot played the rest"
        self.forfeited.add(seat)
        self.replaced[seat] = self.players[seat]
        self.players[seat] = BuiltinSeat(make_bot("random", self.game, seat, derive_seed(self.seed, "forfeit", seat)))

    def abort(self, error: Exception) -> None:
        reason = f"arena error: {type(error).__name__}: {error}".splitlines()[0]
        log.error("match %s aborted: %s", self.match_id, reason, exc_info=error)
        self.record.aborted = reason
        self.record.returns = self.record.ranks = None
        for outcome in self.record.seats:
            outcome.termination, outcome.reason = Termination.ABORTED, reason

    def close(self) -> None:
        """Tell every connected bot how the match ended (best effort) and release it; a launched
        bot's output while its seat was open becomes the seat's log."""
        players = {**dict(enumerate(self.players)), **self.replaced}
        for seat, player in sorted(players.items()):
            if isinstance(player, ConnectedSeat):
                try:
                    player.close(self._end_message(seat))
                except Exception as error:  # noqa: BLE001 - the result stands; the bot just is not told
                    log.warning("match %s: could not send MatchEnd to seat %d: %s", self.match_id, seat, error)
                if player.output is not None:  # a launched bot's log of the match (private: see record.py)
                    outcome = self.record.seats[seat]
                    outcome.log, outcome.log_steps = decode_log(player.output, player.marks)
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)

    def _start_message(self, seat: int) -> pb.MatchStart:
        control = pb.TimeControl(decision_ms=self.control.decision_ms, bank_ms=self.control.bank_ms,
                                 grace_ms=self.control.grace_ms, max_strikes=self.max_strikes)
        return pb.MatchStart(
            match_id=self.match_id, seat=seat, game_id=self.game.info.id, ruleset=self.game.ruleset,
            num_players=self.game.num_players, options_json=json.dumps(self.game.options, sort_keys=True),
            time_control=control, seat_bots=[s.bot for s in self.record.seats],
        )

    def _end_message(self, seat: int) -> pb.MatchEnd:
        outcome = self.record.seats[seat]
        return pb.MatchEnd(
            match_id=self.match_id, seat=seat, returns=self.record.returns or [], ranks=self.record.ranks or [],
            termination=cast("pb.Termination", pb.Termination.Value("TERMINATION_" + outcome.termination.name)),
            reason=outcome.reason,
        )


def forfeit_ranks(ranks: Sequence[int], forfeited: set[int]) -> list[int]:
    """Ranks with every forfeited seat after every other seat; ties keep sharing a rank.

    >>> forfeit_ranks([1, 2, 3], {0})
    [3, 1, 2]
    """
    key = [(seat in forfeited, rank) for seat, rank in enumerate(ranks)]
    return [1 + sum(other < mine for other in key) for mine in key]
