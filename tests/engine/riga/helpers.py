"""Riga test helpers: positions from explicit chance outcomes and actions, or placed.

The tests are the worked examples of rules/riga.md §6 and the flow. Positions come from explicit
chance outcomes and actions where the example is reachable in a few turns (E1, E4, E5, E6, E9,
E10, E14; E6 over three years of play). Examples that need a long build-up (a tableau of many
cards, a thin market) start from a real mid-game state whose tableaus, hands and tiles are then
placed with `placed(...)`; everything after that goes through the public API.
"""

from __future__ import annotations

from engine.core import AnyState, NodeKind
from engine.riga import Riga, RigaState
from engine.riga import actions as a
from engine.riga import components as t
from engine.riga.game import C_STATE
from engine.riga.phases import BUILD, SPRING_ROWS, TAKE

CLOTH, GLASS, WINE, GRAIN = t.CLOTH, t.GLASS, t.WINE, t.GRAIN


A, B, C, D = 0, 1, 2, 3


def card(code: str) -> int:
    return t.CARD_BY_CODE[code]


def goods(*items: int) -> tuple[int, ...]:
    return tuple(items.count(g) for g in range(4))


# -- driving helpers --------------------------------------------------------------------------


def chance(state: RigaState, *outcomes: int) -> RigaState:
    for outcome in outcomes:
        assert state.kind is NodeKind.CHANCE, f"expected a chance node, got {state!r}"
        state = state.apply_chance(outcome)
    return state


def act(state: RigaState, *actions: int) -> RigaState:
    for action in actions:
        assert state.kind is NodeKind.DECISION, f"expected a decision, got {state!r}"
        state = state.apply({state.acting_players()[0]: action})
    return state


DEFAULT_START_BUILDINGS = [("T12", "T11"), ("S12", "S11"), ("D12", "D11"), ("V12", "V10")]


def set_up(
    players: int,
    start: int = A,
    flips: tuple[int, ...] = (t.T_VISBY, t.T_STOCKHOLM, t.T_TALLINN, t.T_DANZIG),
    draws: tuple[int, ...] = (t.T_VISBY, t.T_KNIGHT, t.T_MERCHANT, t.T_MONEY),
    start_goods: dict[int, list[int]] | None = None,
    start_buildings: dict[int, tuple[str, str]] | None = None,
    **options: bool,
) -> RigaState:
    """Start player, Grand Master tiles, then each player's starting goods and building choice
    (keeping the first of the two); returns the year-1 spring chance node."""
    state = chance(Riga(players, **options).initial_state(), start)
    if options.get("use_grand_master", True):
        state = chance(state, *flips, *draws)
    for i in range(players):
        seat = (start + i) % players
        goods_in = (start_goods or {}).get(seat, [GLASS, GLASS])
        pair = (start_buildings or {}).get(seat, DEFAULT_START_BUILDINGS[seat])
        state = chance(state, *goods_in, *(card(c) for c in pair))
        state = act(state, a.KEEP_START)
    return state


def spring(state: RigaState, rows: list[list[int]], display: list[str]) -> RigaState:
    """Feed the spring: goods for the rows in order, then the new display cards."""
    state = chance(state, *(g for row in rows for g in row))
    return chance(state, *(card(c) for c in display))


def deal_any_rows(state: RigaState) -> RigaState:
    """Finish the spring goods rows with whatever good chance offers first."""
    while state.phase == SPRING_ROWS:
        state = state.apply_chance(state.chance_outcomes()[0][0])
    return state


def passive_turn(state: RigaState) -> RigaState:
    """Take the first thing on offer and end the turn (or discard the first card in winter)."""
    seat = state.acting_players()[0]
    return state.apply({seat: state.legal_actions(seat)[0]})


def play_until_chance(state: RigaState) -> RigaState:
    while state.kind is NodeKind.DECISION:
        if state.phase == BUILD:
            state = act(state, a.END_TURN)
        else:
            state = passive_turn(state)
    return state


def reference(state: AnyState) -> RigaState:
    """The RigaState of a position: itself, or a C state's reference (the compiled engine's)."""
    return state.reference() if C_STATE is not None and isinstance(state, C_STATE) else state


def placed(state: AnyState, **fields) -> AnyState:
    """A copy of a real state with some fields replaced (tableaus, hands, tiles, ...), as the
    state the game plays (the C state, when the compiled engine has one)."""
    new = reference(state)._copy()
    for name, value in fields.items():
        assert hasattr(new, name), name
        setattr(new, name, value)
    new._set_kind()  # the node kind follows the phase
    return new if C_STATE is None else C_STATE.from_reference(new)


def summer_turn_position(players: int = 4, **options: bool) -> RigaState:
    """A real state: year 1, summer, A to take."""
    state = set_up(players, **options)
    rows = [[GRAIN] * 5, [GRAIN] * 5, [WINE] * 3, [WINE] * 3, [WINE] * 3, [WINE] * 3][: players + 2]
    state = chance(state, *(g for row in rows for g in row))
    state = chance(state, *(card(c) for c in ("V01", "V02", "V03", "V04", "V05")[: players + 1]))
    assert state.phase == TAKE and state.acting_players() == (A,)
    return state


def build_position(
    tableau: dict[int, tuple[str, ...]],
    hand: tuple[int, ...],
    hand_buildings: tuple[str, ...],
    tiles: tuple[tuple[int, int, int], ...] = (),
    players: int = 4,
    used: tuple[int, ...] | None = None,
) -> RigaState:
    """A at the BUILD step with the given tableaus (by seat), goods and buildings in hand."""
    state = summer_turn_position(players)
    tableaus = tuple(tuple(sorted(card(c) for c in tableau.get(p, ()))) for p in range(players))
    riga_left = tuple(
        tuple(c for c in t.RIGA_CARD_IDS if c not in tableaus[p]) for p in range(players)
    )
    return placed(
        state,
        phase=BUILD,
        tableau=tableaus,
        rsupply=riga_left,
        hgoods=(hand,) + state.hgoods[1:],
        kgoods=(hand,) + state.kgoods[1:],
        hbuild=(tuple(sorted(card(c) for c in hand_buildings)),) + state.hbuild[1:],
        sbuild=((),) + state.sbuild[1:],
        tiles=tiles,
        used=used or (0,) * players,
    )


def payments(state: RigaState, code: str) -> set[tuple[tuple[str, ...], tuple[str, ...]]]:
    """Every payment the step form can complete for `code`: (goods, credits) as in the log."""
    found = set()

    def explore(s: RigaState) -> None:
        if s.pending is None:
            event = s.log[-1]
            assert event[0] == "build" and event[2] == code
            found.add((tuple(sorted(event[3])), event[4]))
            return
        for action in s.legal_actions(A):
            explore(s.apply({A: action}))

    explore(act(state, a.START_BUILD + card(code)))
    return found


def build(state: RigaState, code: str, *items: int) -> RigaState:
    """START_BUILD then the given PAY items (goods 0..3; credits as PAY_CREDIT ids)."""
    state = act(state, a.START_BUILD + card(code))
    return act(state, *(item if item >= a.PAY_GOOD else a.PAY_GOOD + item for item in items))


def holder(state: RigaState, tile: int) -> int:
    return next(h for tl, _, h in state.tiles if tl == tile)


# -- E4 ---------------------------------------------------------------------------------------

E4_DECK = [GRAIN, WINE, GRAIN, CLOTH, GLASS, GLASS, GRAIN, CLOTH, WINE, WINE, WINE, GRAIN, GRAIN, GLASS,
           CLOTH, GLASS]  # fmt: skip


def turn(state: RigaState, take: int, *builds: tuple) -> RigaState:
    """One whole turn: the take, then each (code, pay items...) build, then END_TURN."""
    state = act(state, take)
    for code, *items in builds:
        state = build(state, code, *items)
    return act(state, a.END_TURN)
