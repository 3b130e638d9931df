"""Riga: the Grand Master tiles (rules/riga.md §6 E6 to E9): claims, ties and steals, first tiles,
one build with two checks, the tile set-up.
"""

from __future__ import annotations

import pytest

from engine.riga import Riga
from engine.riga import actions as a
from engine.riga import components as t
from engine.riga import scoring as sc
from engine.riga.phases import BUILD
from tests.engine.riga.helpers import (
    CLOTH,
    GLASS,
    GRAIN,
    WINE,
    A,
    B,
    C,
    D,
    act,
    build,
    build_position,
    card,
    chance,
    goods,
    holder,
    placed,
    set_up,
    spring,
    turn,
)

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
