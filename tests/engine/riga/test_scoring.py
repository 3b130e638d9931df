"""Riga: end-of-game scoring (rules/riga.md §6 E11, E12): the full count, the Money tile, ties.
"""

from __future__ import annotations

from engine.riga import RigaState, queries
from engine.riga import components as t
from engine.riga import scoring as sc
from engine.riga.phases import OVER
from tests.engine.riga.helpers import (
    CLOTH,
    GLASS,
    GRAIN,
    WINE,
    A,
    B,
    C,
    build_position,
    card,
    goods,
    holder,
    placed,
    reference,
)

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
    assert [queries.money(reference(state), p) for p in range(3)] == [11, 3, 11]
    assert sc.grand_master_vp(state.tiles, tableaus) == [8, 8, 4]
    assert queries.money_tile_scores(reference(state)) == [3, 0, 3]
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
