"""Gang of Dice test helpers. The tests are the worked examples of rules §7, every warning card,
options and the flow.

Positions are set up only through explicit chance outcomes (card numbers, die faces) and
actions. Die faces are written as in the rules, with G = 0.
"""

from __future__ import annotations

from engine import registry
from engine.gang_of_dice import actions as act_ids
from engine.gang_of_dice.components import CARD_BY_ID, CARDS, counts

G = 0


A, B, C, D = 0, 1, 2, 3


# -- helpers ------------------------------------------------------------------------------------


def start(players: int, **options):
    return registry.make("gang_of_dice", players, **options).initial_state()


def obs(state, seat: int = 0) -> dict:
    return state.observation(seat)


def actor(state) -> int:
    return state.acting_players()[0]


def act(state, action: int):
    return state.apply({actor(state): action})


def reveal(state, card_id: str):
    assert obs(state)["phase"] == "card"
    return state.apply_chance(CARD_BY_ID[card_id].number)


def roll(state, dice):
    for face in dice:
        state = state.apply_chance(face)
    return state


def stake(state, dice):
    """The seat to act stakes len(dice) dice, which land showing `dice`."""
    return roll(act(state, act_ids.stake_action(len(dice))), dice)


def reroll(state, old, new):
    """Re-roll dice showing the faces in `old`; they land showing `new`."""
    assert len(old) == len(new)
    state = act(state, act_ids.REROLL)
    wanted = counts(old)
    while obs(state)["phase"] == "pick":
        face = obs(state)["pick_face"]
        state = act(state, act_ids.pick_action(face, wanted[face]))
    return roll(state, new)


def stop(state):
    return act(state, act_ids.STOP)


def faces_of(state, seat: int) -> list[int]:
    return obs(state)["faces"][seat]


def setup_round(state, card_id: str, stakes, winner: int):
    """Play a round whose result is fixed: `winner` rolls one 2 and Gs, everyone else only Gs.

    A single 2 among Gs triggers no card and beats 0, so `winner` takes every staked die.
    """
    state = reveal(state, card_id)
    for _ in obs(state)["turn_order"]:
        seat = actor(state)
        n = stakes[seat]
        state = stop(stake(state, [2] + [G] * (n - 1) if seat == winner else [G] * n))
    assert obs(state)["history"][-1]["winner"] == winner
    return state


def setup(players: int, plan, avoid=()):
    """Play `plan` = [(stakes, winner), ...] from the start with cards not in `avoid`."""
    cards = [card.id for card in CARDS if card.id not in avoid]
    state = start(players)
    for (stakes, winner), card_id in zip(plan, cards):
        state = setup_round(state, card_id, stakes, winner)
    return state
