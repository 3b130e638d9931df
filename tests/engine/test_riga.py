"""Riga with the Grand Master tiles: the worked examples of rules/riga.md §6 and the flow.

Positions come from explicit chance outcomes and actions where the example is reachable in a few
turns (E1, E4, E5, E6, E9, E10, E14; E6 over three years of play). Examples that need a long build-up (a tableau of many cards, a thin
market) start from a real mid-game state whose tableaus, hands and tiles are then placed with
`placed(...)`; everything after that goes through the public API.
"""

from __future__ import annotations

import random

import pytest

from engine import registry
from engine.core import IllegalActionError, NodeKind, sample_chance
from engine.riga import Riga, RigaState
from engine.riga import actions as a
from engine.riga import scoring as sc
from engine.riga import components as t
from engine.riga.phases import BUILD, DISCARD, OVER, SPRING_ROWS, TAKE

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


def placed(state: RigaState, **fields) -> RigaState:
    """A copy of a real state with some fields replaced (tableaus, hands, tiles, ...)."""
    new = state._copy()
    for name, value in fields.items():
        assert hasattr(new, name), name
        setattr(new, name, value)
    return new._set_kind()  # the node kind follows the phase


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


# -- E1 ---------------------------------------------------------------------------------------


def test_e1_refused_goods_and_minimal_payments_in_danzig() -> None:
    # A starts with Grain, Glass and keeps D08; takes the row [Wine, Cloth, Grain].
    state = set_up(2, start_goods={A: [GRAIN, GLASS]}, start_buildings={A: ("D08", "D01")})
    state = spring(state, [[WINE, CLOTH, GRAIN], [GLASS, GLASS, GLASS]] + [[CLOTH, CLOTH]] * 2,
                   ["V01", "V02", "V03"])
    state = act(state, a.TAKE_ROW + 0)
    assert state.hgoods[A] == goods(GRAIN, GRAIN, GLASS, WINE, CLOTH)
    assert a.START_BUILD + card("D08") in state.legal_actions(A)
    assert payments(state, "D08") == {(("glass", "wine"), ()), (("cloth", "glass"), ())}
    started = act(state, a.START_BUILD + card("D08"))
    assert a.PAY_GOOD + GRAIN not in started.legal_actions(A)  # Danzig refuses Grain
    after_cloth = act(started, a.PAY_GOOD + CLOTH)
    assert after_cloth.legal_actions(A) == [a.PAY_GOOD + GLASS]  # Cloth+Wine = 8 is too little


def test_e1_payment_rules_directly() -> None:
    values = sc.item_values((), t.DANZIG)
    avail = list(goods(GRAIN, GRAIN, GLASS, WINE, CLOTH)) + [0] * 4
    found = sc.legal_payments(values, avail, 9)
    assert sorted(found) == sorted([(0, 1, 1, 0, 0, 0, 0, 0), (1, 1, 0, 0, 0, 0, 0, 0)])
    assert not sc.is_legal_payment(values, (1, 0, 1, 0, 0, 0, 0, 0), 9)  # 8: too little
    assert not sc.is_legal_payment(values, (1, 1, 1, 0, 0, 0, 0, 0), 9)  # 14: not minimal
    assert not sc.is_legal_payment(values, (0, 1, 1, 1, 0, 0, 0, 0), 9)  # Grain refused


def test_minimal_payments_are_the_legal_payments() -> None:
    rng = random.Random(6)
    for _ in range(300):
        values = tuple(rng.choice((0, 2, 3, 4, 5, 6, 7)) for _ in range(4)) + (4, 4, 4, 4)
        avail = tuple(rng.randint(0, 4) for _ in range(4)) + tuple(rng.randint(0, 1) for _ in range(4))
        cost = rng.randint(0, 15)
        assert sorted(sc.minimal_payments(values, avail, cost)) == sorted(sc.legal_payments(values, avail, cost))


def test_payable_items_are_those_some_legal_payment_still_holds() -> None:
    # The memoised PAY check (capped counts) against every legal payment, listed by brute force.
    rng = random.Random(7)
    for _ in range(300):
        values = tuple(rng.choice((0, 2, 3, 4, 5, 6, 7)) for _ in range(4)) + (4, 4, 4, 4)
        avail = tuple(rng.randint(0, 5) for _ in range(4)) + tuple(rng.randint(0, 1) for _ in range(4))
        cost = rng.randint(1, 15)
        legal = sc.legal_payments(values, avail, cost)
        prefixes = {tuple(min(q, k) for q, k in zip(pay, cut)) for pay in legal
                    for cut in [tuple(rng.randint(0, 3) for _ in range(8)) for _ in range(3)]}
        for paid in prefixes | {(0,) * 8}:
            expected = tuple(i for i in range(8) if any(
                all(q >= p + (j == i) for j, (q, p) in enumerate(zip(pay, paid))) for pay in legal))
            assert sc.payable(values, avail, paid, cost) == expected, (values, avail, paid, cost)


def test_build_facts_give_the_values_and_costs_of_good_value_and_build_cost() -> None:
    rng = random.Random(9)
    for _ in range(300):
        tableau = tuple(sorted(rng.sample(range(len(t.CARDS)), rng.randint(0, 12))))
        values, discounts = sc.build_facts(tableau)
        assert values == tuple(sc.item_values(tableau, city) for city in range(5)), tableau
        assert [sc.cost_with(c, discounts) for c in range(len(t.CARDS))] == [
            sc.build_cost(tableau, c) for c in range(len(t.CARDS))], tableau


def test_buildable_cards_are_those_with_a_legal_payment() -> None:
    rng = random.Random(8)
    for _ in range(200):
        tableau = tuple(sorted(rng.sample(range(len(t.CARDS)), rng.randint(0, 8))))
        hand, used = tuple(rng.randint(0, 4) for _ in range(4)), rng.randint(0, 15)
        cards = tuple(sorted(rng.sample(range(len(t.CARDS)), 6)))
        avail = sc.available_items(hand, tableau, used)
        expected = [c for c in cards if sc.legal_payments(
            sc.item_values(tableau, t.CARDS[c].city), avail, sc.build_cost(tableau, c))]
        assert sc.buildable(hand, tableau, used, cards) == expected, (tableau, hand, used, cards)


# -- E2 ---------------------------------------------------------------------------------------


def test_e2_exchange_office_and_factor_in_stockholm() -> None:
    hand = goods(GLASS, WINE, GRAIN)
    state = build_position({A: ("V01", "R4")}, hand, ("S09",))
    assert sc.good_value(state.tableau[A], GLASS, t.STOCKHOLM) == 5
    assert payments(state, "S09") == {(("glass", "grain", "wine"), ())}
    without = build_position({A: ("V01",)}, hand, ("S09",))
    assert sc.good_value(without.tableau[A], GLASS, t.STOCKHOLM) == 0
    assert a.START_BUILD + card("S09") not in without.legal_actions(A)


# -- E3 ---------------------------------------------------------------------------------------


def test_e3_discount_credit_and_minimality() -> None:
    state = build_position({A: ("D03", "T05")}, goods(GLASS, GLASS, WINE), ("D12",))
    assert sc.build_cost(state.tableau[A], card("D12")) == 13
    assert payments(state, "D12") == {
        (("glass", "wine"), ("T05",)),
        (("glass", "glass"), ("T05",)),
        (("glass", "glass", "wine"), ()),
    }
    assert state.money(A) == 4 + 4 + 4 + 3  # goods at base value plus the unused credit
    credit = a.PAY_CREDIT + t.CREDIT_INDEX[card("T05")]
    done = build(state, "D12", credit, GLASS, WINE)
    assert done.used[A] == 1 << t.CREDIT_INDEX[card("T05")]
    assert card("D12") in done.tableau[A]
    assert done.money(A) == 4  # one Glass left; the used credit is no longer money
    assert done.observation(B)["players"][A]["credits_used"] == ["T05"]


# -- E4 ---------------------------------------------------------------------------------------

E4_DECK = [GRAIN, WINE, GRAIN, CLOTH, GLASS, GLASS, GRAIN, CLOTH, WINE, WINE, WINE, GRAIN, GRAIN, GLASS,
           CLOTH, GLASS]  # fmt: skip


def test_e4_spring_dealing_three_players() -> None:
    state = set_up(3)
    deck_before = sum(state.gdeck)
    state = chance(state, *E4_DECK)
    names = [[t.GOOD_NAMES[g] for g in row] for row in state.rows]
    assert names == [
        ["grain", "wine", "grain", "cloth"],
        ["glass", "glass", "grain"],
        ["cloth", "wine", "wine"],
        ["wine", "grain", "grain", "glass"],
        ["cloth", "glass"],
    ]
    assert [sum(t.BASE_VALUE[g] for g in row) for row in state.rows] == [12, 10, 11, 11, 9]
    assert sum(state.gdeck) == deck_before - 16  # the next cards (Wine, Cloth) stay in the deck
    year1 = ["V01", "V02", "V03", "V04"]
    state = chance(state, *(card(c) for c in year1))
    assert state.dold == () and state.dnew == tuple(card(c) for c in year1)
    # year 1: A takes V01 from NEW, everybody else takes rows
    state = act(state, a.TAKE_BUILDING + card("V01"), a.END_TURN)
    state = play_until_chance(state)
    assert state.year == 2 and state.phase != TAKE
    state = deal_any_rows(state)
    assert state.dold == tuple(card(c) for c in ["V02", "V03", "V04"])  # NEW moved to OLD
    year2 = ["T01", "T02", "T03", "T04"]
    state = chance(state, *(card(c) for c in year2))
    assert state.dnew == tuple(card(c) for c in year2)
    state = play_until_chance(state)  # rows first, then the lowest display card
    left_in_old = state.dold
    assert left_in_old and set(left_in_old) <= {card(c) for c in ["V02", "V03", "V04"]}
    state = deal_any_rows(state)
    assert state.year == 3
    assert set(left_in_old) <= set(state.removed)
    assert not set(left_in_old) & set(state.dnew + state.dold)
    assert state.dold == tuple(card(c) for c in year2)


# -- E5 ---------------------------------------------------------------------------------------


def test_e5_seasons_and_order_three_players() -> None:
    rng = random.Random(7)
    state = set_up(3, start=A)
    turns: dict[tuple[int, str], list[int]] = {}
    winters: dict[int, list[int]] = {}
    take_count = [0, 0, 0]
    starts = {}
    while state.kind is not NodeKind.TERMINAL:
        if state.kind is NodeKind.CHANCE:
            state = state.apply_chance(sample_chance(state, rng))
            continue
        seat = state.acting_players()[0]
        starts.setdefault(state.year, state.start)
        if state.phase == TAKE:
            season = "summer" if state.season == 2 else "autumn"
            turns.setdefault((state.year, season), []).append(seat)
            take_count[seat] += 1
        if state.phase == DISCARD:
            order = winters.setdefault(state.year, [])
            if not order or order[-1] != seat:
                order.append(seat)
        state = act(state, a.END_TURN) if state.phase == BUILD else passive_turn(state)
    assert starts[2] == B
    assert turns[(2, "summer")] == [B, C, A]
    assert turns[(2, "autumn")] == [A, C, B]
    assert winters[2] == [B, C, A]  # every hand is over the limit with this passive play
    assert starts[3] == C
    assert turns[(3, "summer")] == [C, A, B]
    assert turns[(3, "autumn")] == [B, A, C]
    assert state.year == 9 and max(year for year, _ in turns) == 9
    assert take_count == [18, 18, 18]


# -- E6, E7, E8: the Grand Master check ----------------------------------------------------------


def test_e6_max_city_tile_claim_tie_and_steal() -> None:
    tiles = ((t.T_VISBY, t.MAX, -1),)
    tableaus = [[card("V01")], [card("V02")], [], []]
    holders = []
    sequence = [(A, "V03"), (B, "V04"), (B, "T01"), (B, "V05"), (A, "V06")]
    for seat, code in sequence:
        tableaus[seat].append(card(code))
        tiles, _ = sc.gm_check(tiles, seat, tableaus)
        holders.append(tiles[0][2])
    assert holders == [A, A, A, B, B]


def test_e6_through_build_actions() -> None:
    state = build_position(
        {A: ("V06",), B: ("V07", "V08")}, goods(WINE), ("V03",),
        tiles=((t.T_VISBY, t.MAX, -1),),
    )
    state = build(state, "V03", WINE)  # cost 5, Visby Wine 5
    assert holder(state, t.T_VISBY) == A  # 2 >= 2: taken from the supply
    assert ("claim", A, "Visby", -1) in state.log
    # B reaches 2 as well: no steal on a tie (B's third Visby building steals)
    tied = placed(state, tableau=(state.tableau[A], state.tableau[B]) + state.tableau[2:])
    tiles, claims = sc.gm_check(tied.tiles, B, tied.tableau)
    assert tiles[0][2] == A and claims == []
    more = tied.tableau[B] + (card("V05"),)
    tiles, claims = sc.gm_check(tied.tiles, B, (tied.tableau[A], more) + tied.tableau[2:])
    assert tiles[0][2] == B and claims == [(t.T_VISBY, A)]


def turn(state: RigaState, take: int, *builds: tuple) -> RigaState:
    """One whole turn: the take, then each (code, pay items...) build, then END_TURN."""
    state = act(state, take)
    for code, *items in builds:
        state = build(state, code, *items)
    return act(state, a.END_TURN)


def test_e6_max_tile_through_three_years_of_play() -> None:
    """Claim at 2, no steal on 2 vs 2, steal with 3 vs 2, no steal on 3 vs 3: all from real turns."""
    state = set_up(
        2, start=A, flips=(t.T_STOCKHOLM, t.T_TALLINN, t.T_DANZIG, t.T_KNIGHT),
        start_goods={A: [WINE, WINE], B: [WINE, WINE]},
        start_buildings={A: ("V06", "T12"), B: ("T06", "S12")},
    )
    assert holder(state, t.T_VISBY) == -1 and (t.T_VISBY, t.MAX, -1) in state.tiles
    state = spring(state, [[WINE] * 3, [GLASS] * 3, [GLASS] * 3, [CLOTH] * 2], ["V07", "V09", "V04"])
    state = turn(state, a.TAKE_ROW + 0, ("V06", WINE, WINE))  # A: Visby 1
    state = turn(state, a.TAKE_BUILDING + card("V09"), ("V09", WINE, WINE))  # B: Visby 1
    state = turn(state, a.TAKE_ROW + 1)  # autumn: B first
    state = turn(state, a.TAKE_BUILDING + card("V07"), ("V07", WINE, WINE))  # A: Visby 2
    holders = [holder(state, t.T_VISBY)]
    assert state.year == 2 and state.start == B
    state = spring(state, [[WINE] * 3, [GRAIN] * 5], ["V05", "V08", "T01"])
    state = turn(state, a.TAKE_ROW + 2)  # B takes the leftover Glass row
    state = turn(state, a.TAKE_ROW + 0)  # A
    state = turn(state, a.TAKE_BUILDING + card("V08"))  # autumn: A first
    state = turn(state, a.TAKE_BUILDING + card("V04"), ("V04", GLASS, GLASS))  # B: Visby 2
    holders.append(holder(state, t.T_VISBY))
    assert state.year == 3 and state.start == A
    state = spring(state, [[CLOTH] * 2, [CLOTH] * 2], ["V10", "V11", "V12"])
    state = turn(state, a.TAKE_ROW + 1)  # A takes the Grain row
    state = turn(state, a.TAKE_BUILDING + card("V05"), ("V05", GLASS, GLASS))  # B: Visby 3
    holders.append(holder(state, t.T_VISBY))
    assert ("claim", B, "Visby", A) in state.log
    state = act(state, a.TAKE_ROW + 0)  # autumn: B first; V04 is a Harbour Scribe: one hidden draw
    state = act(chance(state, GRAIN), a.END_TURN)
    state = turn(state, a.TAKE_ROW + 2, ("V08", WINE, WINE))  # A: Visby 3
    holders.append(holder(state, t.T_VISBY))
    assert holders == [A, A, B, B]
    assert [sc.city_count(tab, t.VISBY) for tab in state.tableau] == [3, 3]


def test_e7_first_tile_is_kept_for_good() -> None:
    knights3 = ("V05", "V06", "V09")
    state = build_position(
        {A: knights3, B: ("T05", "T06", "T09"), C: ("D06",)},
        goods(CLOTH, CLOTH, CLOTH), ("S06",), tiles=((t.T_KNIGHT, t.FIRST, -1),),
    )
    # B builds S06 (knight #4): give B the turn at the BUILD step
    state = placed(state, queue=(B, C, D, A), hgoods=(state.hgoods[A], goods(CLOTH, CLOTH)) + state.hgoods[2:],
                   kgoods=(state.kgoods[A], goods(CLOTH, CLOTH)) + state.kgoods[2:],
                   hbuild=(state.hbuild[A], (card("S06"),)) + state.hbuild[2:])
    state = build(state, "S06", CLOTH)  # Stockholm Cloth = 7 >= 7
    assert holder(state, t.T_KNIGHT) == B
    tableaus = list(state.tableau)
    for code in ("T06", "S09"):  # A's knights #4 and #5
        tableaus[A] = tableaus[A] + (card(code),)
        tiles, claims = sc.gm_check(state.tiles, A, tableaus)
        assert tiles[0][2] == B and claims == []
    end = placed(state, tableau=tuple(tableaus), tiles=tiles)
    assert sc.grand_master_vp(end.tiles, end.tableau) == [2, 4, 0, 0]


def test_e8_one_build_two_checks() -> None:
    state = build_position(
        {A: ("V01", "T05", "D09"), C: ("S05", "S06", "S09")},
        goods(WINE, WINE), ("V06",),
        tiles=((t.T_VISBY, t.MAX, -1), (t.T_KNIGHT, t.MAX, C)),
    )
    state = build(state, "V06", WINE, WINE)  # Visby Wine = 5: 5 + 5 >= 7
    assert sc.city_count(state.tableau[A], t.VISBY) == 2
    assert sc.symbol_count(state.tableau[A], t.KNIGHT) == 3
    assert holder(state, t.T_VISBY) == A
    assert holder(state, t.T_KNIGHT) == C  # 3 vs 3: the holder keeps it


# -- E9 ---------------------------------------------------------------------------------------

E9_FLIPS = (t.T_DANZIG, t.T_VISBY, t.T_TALLINN, t.T_KNIGHT)
E9_DRAWS = (t.T_MONEY, t.T_DANZIG, t.T_MERCHANT, t.T_STOCKHOLM)


@pytest.mark.parametrize("players, side", [(3, t.P23), (4, t.P4)])
def test_e9_tile_setup_without_riga_buildings(players: int, side: int) -> None:
    state = chance(Riga(players, use_riga_buildings=False).initial_state(), A)
    for tile in E9_FLIPS:
        assert t.T_RIGA not in [o for o, _ in state.chance_outcomes()]
        assert len(state.chance_outcomes()) == 7 - len(state.flipped)
        state = chance(state, tile)
    for tile in E9_DRAWS:
        assert t.T_RIGA not in [o for o, _ in state.chance_outcomes()]
        state = chance(state, tile)
    assert dict((tile, s) for tile, s, _ in state.tiles) == {
        t.T_MONEY: side, t.T_DANZIG: t.FIRST, t.T_MERCHANT: t.MAX, t.T_STOCKHOLM: t.MAX,
    }
    assert all(h == -1 for _, _, h in state.tiles)
    assert state.rsupply == ((),) * players


def test_e9_money_side_ignores_the_flip() -> None:
    state = chance(Riga(3).initial_state(), A, t.T_MONEY, t.T_RIGA, t.T_VISBY, t.T_KNIGHT)
    state = chance(state, t.T_MONEY, t.T_RIGA, t.T_DANZIG, t.T_KNIGHT)
    sides = {tile: s for tile, s, _ in state.tiles}
    assert sides == {t.T_MONEY: t.P23, t.T_RIGA: t.FIRST, t.T_DANZIG: t.MAX, t.T_KNIGHT: t.FIRST}


def test_set_up_chance_is_the_seed_procedure() -> None:
    state = chance(Riga(4).initial_state(), A)
    assert state.chance_outcomes() == [(tile, 1 / 8) for tile in range(8)]
    state = chance(Riga(2, use_grand_master=False).initial_state(), A)
    assert state.tiles == () and state.phase != 1  # no tile draws without the expansion


# -- E10 --------------------------------------------------------------------------------------


def test_e10_winter_hand_limit_with_a_warehouse() -> None:
    state = set_up(3, start=A, start_goods={A: [WINE, WINE], B: [WINE, WINE], C: [WINE, WINE]})
    rows = [[GRAIN] * 4 + [CLOTH], [WINE] * 3, [GLASS] + [GRAIN] * 3, [WINE] + [GRAIN] * 3,
            [WINE, WINE, GRAIN, GRAIN]]  # fmt: skip
    state = spring(state, rows, ["V01", "V02", "V03", "V04"])
    state = act(state, a.TAKE_ROW + 0)  # A: 3 + 5 cards
    state = build(state, "R3", CLOTH)  # Warehouse, 5 at Riga values
    state = act(state, a.END_TURN)
    state = act(state, a.TAKE_ROW + 1, a.END_TURN)  # B
    state = act(state, a.TAKE_ROW + 2, a.END_TURN)  # C, then autumn C, B, A
    state = act(state, a.TAKE_BUILDING + card("V01"), a.END_TURN)
    state = act(state, a.TAKE_ROW + 4, a.END_TURN)
    state = act(state, a.TAKE_ROW + 3, a.END_TURN)
    assert [state.hand_size(p) for p in range(3)] == [11, 10, 8]
    assert sc.hand_limit(state.tableau[A]) == 11
    assert state.phase == DISCARD and state.acting_players() == (B,)
    assert state.observation(B)["discards_left"] == 2
    legal = state.legal_actions(B)
    assert legal == [a.DISCARD_GOOD + g for g in range(4) if state.hgoods[B][g]] + [
        a.DISCARD_BUILDING + c for c in state.hbuild[B]
    ]
    state = act(state, a.DISCARD_GOOD + WINE)
    assert state.acting_players() == (B,)
    state = act(state, a.DISCARD_GOOD + GRAIN)
    assert state.kind is NodeKind.CHANCE and state.year == 2  # A and C never acted
    assert state.hand_size(B) == 8 and state.start == B
    assert state.gdisc[WINE] == 1 and state.gdisc[GRAIN] == 1


# -- E11, E12: scoring --------------------------------------------------------------------------

E11_TABLEAUS = {
    A: ("V06", "V09", "V12", "T05", "T06", "S07", "D07", "D08", "R1"),
    B: ("V04", "V10", "T07", "T08", "T09", "S06", "S09", "D05", "R1"),
    C: ("V07", "V11", "S04", "S10", "S12", "D06", "D09"),
}


def e11_final_state() -> RigaState:
    state = build_position(
        E11_TABLEAUS, goods(CLOTH, GRAIN), ("T01",), players=3,
        tiles=((t.T_VISBY, t.MAX, A), (t.T_KNIGHT, t.FIRST, A), (t.T_MERCHANT, t.MAX, B), (t.T_MONEY, t.P23, -1)),
        used=(0, 1 << t.CREDIT_INDEX[card("D05")], 0),
    )
    return placed(
        state,
        phase=OVER, season=5, queue=(),
        hgoods=(goods(CLOTH, GRAIN), goods(WINE), goods(CLOTH, GLASS, GRAIN)),
        kgoods=(goods(CLOTH, GRAIN), goods(WINE), goods(CLOTH, GLASS, GRAIN)),
        hbuild=((card("T01"),), (), (card("T02"), card("T03"))),
        sbuild=((), (), ()),
    )


def test_e11_full_end_of_game_scoring() -> None:
    state = e11_final_state()
    tableaus = state.tableau
    assert [sum(t.CARDS[c].vp for c in tab) for tab in tableaus] == [30, 27, 26]
    assert [state.money(p) for p in range(3)] == [11, 3, 11]
    assert sc.grand_master_vp(state.tiles, tableaus) == [8, 8, 4]
    assert state.money_tile_scores() == [3, 0, 3]
    assert state.returns() == [39.0, 35.0, 29.0]
    assert state.ranks() == [1, 2, 3]
    final = state.observation(B)["final"]
    assert final["totals"] == [39, 35, 29] and final["money"] == [11, 3, 11]


def test_e12_money_tile_four_players() -> None:
    assert sc.money(goods(CLOTH, GLASS), (), 0) == 9
    assert sc.money(goods(GLASS, WINE, GRAIN), (), 0) == 9
    assert sc.money((0, 0, 0, 0), (card("S05"),), 0) == 4
    assert sc.money((0, 0, 0, 0), (card("S05"),), 1 << t.CREDIT_INDEX[card("S05")]) == 0
    awards = t.MONEY_AWARDS[t.P4]
    assert sc.money_tile_vp([9, 9, 4, 0], awards) == [5, 5, 2, 0]
    assert sc.money_tile_vp([9, 9, 0, 0], awards) == [5, 5, 0, 0]  # no money, no VP


def test_money_tile_ties_split_rounded_down() -> None:
    assert sc.money_tile_vp([5, 5, 5], (4, 2)) == [2, 2, 2]
    assert sc.money_tile_vp([5, 5, 5, 5], (6, 4, 2)) == [3, 3, 3, 3]
    assert sc.money_tile_vp([7, 5, 5], (4, 2)) == [4, 1, 1]
    assert sc.money_tile_vp([3, 3], (5, 2)) == [3, 3]  # floor((5 + 2) / 2) for any award list


def test_max_tile_bonus_for_players_tied_behind_the_holder() -> None:
    tiles = ((t.T_VISBY, t.MAX, A),)
    tableaus = (
        (card("V01"), card("V02"), card("V03")),
        (card("V04"), card("V05"), card("V06")),  # equals the holder: +2
        (card("V07"), card("V08")),  # 2 >= 2, but B has more: nothing
        (card("V09"),),
    )
    assert sc.grand_master_vp(tiles, tableaus) == [4, 2, 0, 0]


def test_winner_tie_break_money_then_buildings() -> None:
    base = build_position({A: ("V06",), B: ("T06",)}, goods(CLOTH), (), players=2)
    base = placed(base, phase=OVER, season=5, queue=(), hbuild=((), ()), sbuild=((), ()))
    richer_a = placed(base, hgoods=(goods(CLOTH), goods(GLASS)))
    assert richer_a.returns() == [3.0, 3.0] and richer_a.ranks() == [1, 2]
    more_built_b = placed(base, hgoods=(goods(CLOTH), goods(CLOTH)),
                          tableau=((card("V06"),), (card("T01"), card("T06"))))
    assert more_built_b.returns() == [3.0, 3.0] and more_built_b.ranks() == [2, 1]
    shared = placed(base, hgoods=(goods(CLOTH), goods(CLOTH)))
    assert shared.ranks() == [1, 1]


# -- E13 --------------------------------------------------------------------------------------


def test_e13_take_options_when_the_market_is_thin() -> None:
    state = summer_turn_position(4)
    thin = placed(state, season=3, rows=((),) * 6, dnew=(card("T08"),), dold=(card("S02"),))
    assert thin.legal_actions(A) == sorted([a.TAKE_BUILDING + card("T08"), a.TAKE_BUILDING + card("S02")])
    with pytest.raises(IllegalActionError):
        thin.apply({A: a.TAKE_NOTHING})
    empty = placed(thin, dnew=(), dold=())
    assert empty.legal_actions(A) == [a.TAKE_NOTHING]
    after = act(empty, a.TAKE_NOTHING)
    assert after.phase == BUILD and after.hbuild == empty.hbuild


# -- E14 --------------------------------------------------------------------------------------


def test_e14_claims_happen_mid_turn_and_the_build_cap() -> None:
    state = set_up(2, start=A, start_goods={A: [WINE, WINE]}, start_buildings={A: ("V08", "T12")})
    assert (t.T_VISBY, t.FIRST, -1) in state.tiles
    state = spring(state, [[GRAIN] * 4 + [WINE], [GLASS] * 3, [GLASS] * 3, [CLOTH] * 2], ["V03", "V11", "T01"])
    state = turn(state, a.TAKE_BUILDING + card("V03"), ("V03", WINE))  # A: Visby 1 (Builders' Guild)
    state = turn(state, a.TAKE_ROW + 1)  # B
    state = turn(state, a.TAKE_ROW + 3)  # autumn: B
    state = turn(state, a.TAKE_ROW + 0)  # A
    state = spring(state, [[CLOTH, WINE, WINE], [GRAIN] * 5, [CLOTH] * 2], ["T02", "T03", "T04"])
    state = turn(state, a.TAKE_ROW + 1)  # year 2 summer: B, then A
    state = turn(state, a.TAKE_ROW + 0)
    state = act(state, a.TAKE_BUILDING + card("V11"))  # autumn: A first
    assert state.hbuild[A] == (card("V08"), card("V11"))
    assert sc.city_count(state.tableau[A], t.VISBY) == 1
    state = build(state, "V08", WINE, GRAIN)  # 9 - 2 = 7
    assert holder(state, t.T_VISBY) == -1 and state.builds == 1  # Visby 2: FIRST needs 3
    state = build(state, "V11", WINE, WINE, GRAIN)  # 13 - 2 = 11
    assert holder(state, t.T_VISBY) == A and state.builds == 2  # taken at once, mid-turn
    assert state.log[-1] == ("claim", A, "Visby", -1)
    state = build(state, "R3", CLOTH)
    assert state.builds == 3
    left = sc.available_items(state.hgoods[A], state.tableau[A], state.used[A])
    assert sc.can_pay(sc.item_values(state.tableau[A], t.RIGA), left, 6)  # R2 / R4 affordable
    assert state.legal_actions(A) == [a.END_TURN]
    state = act(state, a.END_TURN)
    assert state.acting_players() == (B,) and state.builds == 0


# -- flow and protocol ---------------------------------------------------------------------------


def test_registry_options_and_labels() -> None:
    game = registry.make("riga", 3)
    assert game.options == {"use_riga_buildings": True, "use_grand_master": True}
    with pytest.raises(ValueError):
        registry.make("riga", 5)
    assert game.action_label(a.START_BUILD + card("D05")) == "build Danzig Strongbox (D05)"
    assert game.action_label(a.PAY_CREDIT) == "pay with the credit of Visby Strongbox (V05)"
    assert game.action_label(a.TAKE_ROW + 3) == "take goods row 4"
    assert game.action_label(a.KEEP_START + 1) == "keep the second start building"
    assert game.action_label(a.START_BUILD + card("R1")) == "build Monastery (R1)"
    assert game.action_label(a.DISCARD_GOOD + WINE) == "discard wine"
    assert len({game.action_label(x) for x in range(a.NUM_ACTIONS)}) == a.NUM_ACTIONS


def test_chance_labels_say_what_each_set_up_and_spring_draw_is() -> None:
    state = Riga(3).initial_state()
    assert state.chance_label(B) == "start player: seat 1"
    state = chance(state, A)
    assert state.chance_label(t.T_MONEY) == "Grand Master tile turned over: Money"
    state = chance(state, t.T_VISBY, t.T_STOCKHOLM, t.T_TALLINN, t.T_DANZIG)
    assert state.chance_label(t.T_KNIGHT) == "Grand Master tile to the supply: Knight"
    state = chance(state, t.T_VISBY, t.T_KNIGHT, t.T_MERCHANT, t.T_MONEY)
    assert state.chance_label(WINE) == "starting goods card: wine"
    state = chance(state, GLASS, GLASS)
    assert state.chance_label(card("V05")) == "start building card: Visby Strongbox (V05)"
    assert state.chance_visibility(card("V05")) == {A}  # drawn face down (§2.6)
    assert state.hidden_chance_label() == "start building card for seat 0"
    kept = chance(state, card("V05"), card("T05"))
    assert kept.action_visibility(A, a.KEEP_START + 1) == {A}
    assert kept.hidden_action_label(A) == "seat 0 keeps a start building card"
    spring = set_up(3)
    assert spring.chance_visibility(WINE) is None
    assert spring.chance_label(WINE) == "goods card for a row: wine"
    assert deal_any_rows(spring).chance_label(card("V05")) == "building card: Visby Strongbox (V05)"


def test_card_tables_match_the_rules() -> None:
    city_cards = [c for c in t.CARDS if c.city != t.RIGA]
    assert len(city_cards) == 48 and len(t.CARDS) == 52
    assert sum(c.symbol == t.KNIGHT for c in city_cards) == 12
    assert sum(c.symbol == t.MERCHANT for c in city_cards) == 12
    for city in range(4):
        assert sum(c.vp for c in city_cards if c.city == city) == 30
    factors = [c.arg for c in city_cards if c.benefit == t.FACTOR]
    assert sorted(factors) == [0, 0, 1, 1, 2, 2, 3, 3]
    assert t.CARDS[card("D05")].name == "Danzig Strongbox"


def test_extra_draw_goods_are_hidden_from_opponents() -> None:
    state = build_position({A: ("V04",)}, goods(), (), players=2)
    state = placed(state, phase=TAKE)
    state = act(state, a.TAKE_ROW + 0)
    assert state.kind is NodeKind.CHANCE  # one hidden extra draw for the Harbour Scribe
    assert state.chance_visibility(CLOTH) == {A}
    assert state.hidden_chance_label() == "extra goods card for seat 0"
    state = chance(state, CLOTH)
    assert state.phase == BUILD
    assert state.hgoods[A] == goods(*[GRAIN] * 5, CLOTH)
    seen_by_b = state.observation(B)["players"][A]
    assert seen_by_b["known_goods"] == {"cloth": 0, "glass": 0, "wine": 0, "grain": 5}
    assert seen_by_b["goods_in_hand"] == 6


def test_sample_state_keeps_the_view_of_the_seat() -> None:
    rng = random.Random(1)
    state = set_up(3)
    state = chance(state, *E4_DECK, *(card(c) for c in ["V01", "V02", "V03", "V04"]))
    game = Riga(3)
    for seat in range(3):
        sample = game.sample_state(state.observation(seat), rng)
        assert sample.observation(seat) == state.observation(seat)
        assert sample.hbuild[seat] == state.hbuild[seat]


def _conserved(state: RigaState) -> None:
    for g in range(4):
        total = state.gdeck[g] + state.gdisc[g] + sum(row.count(g) for row in state.rows)
        assert total + sum(hand[g] for hand in state.hgoods) == t.DECK_COUNTS[g]
        assert all(known[g] <= hand[g] for known, hand in zip(state.kgoods, state.hgoods))
    cards = list(state.bpool + state.dnew + state.dold + state.removed + state.choice)
    cards += [c for c, _ in state.bbottom]
    for p in range(state.num_players):
        cards += list(state.hbuild[p]) + [c for c in state.tableau[p] if c < t.NUM_CITY_CARDS]
    assert sorted(cards) == list(t.CITY_CARD_IDS)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_cards_are_conserved_in_build_happy_playouts(players: int) -> None:
    """Random games that prefer building: every goods card and city building stays accounted for."""
    rng = random.Random(players)
    for _ in range(3):
        state = Riga(players).initial_state()
        while state.kind is not NodeKind.TERMINAL:
            _conserved(state)
            if state.kind is NodeKind.CHANCE:
                state = state.apply_chance(sample_chance(state, rng))
                continue
            legal = state.legal_actions(state.acting_players()[0])
            busy = [x for x in legal if x != a.END_TURN] or legal
            state = state.apply({state.acting_players()[0]: rng.choice(busy)})
        _conserved(state)
    assert state.year == t.YEARS[players]
