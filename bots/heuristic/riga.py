"""Heuristic for Riga: collect buildings you can pay for, take the goods that pay for them, build.

Rationale. Points come from built buildings (VP), the Grand Master tiles and, a little, money;
a building left in hand costs 2 VP. So a building is worth its VP plus what its benefit will
still bring in the years left (a Factor or a Scribe pays off every year, a Strongbox credit once)
plus a point when it counts towards a Grand Master tile in play, and what matters is worth per
ducat of cost. Card data (costs, VP, city values) is the printed card table in engine/riga/components.py.

- Set-up: keep the start building with the best worth per ducat.
- Take: with no building in hand (or plenty of goods to spare), take the display building with
  the best worth per ducat, unless it is too late to pay for it; otherwise take the goods row
  worth the most towards the buildings in hand (each good at its value in their cities).
- Build: start the buildable card of highest worth; pay with the item that completes the cost
  with the least waste (the largest item while none completes), credits last (unused credits
  count as money). Stop when nothing worth building is affordable.
- Winter: discard the cheapest goods first; a building only when no goods are left.
"""

from __future__ import annotations

from typing import Any

from bots.base import Bot
from engine.riga import components as t
from engine.riga.scoring import build_cost, good_value

KEEP_BASE, ROW_BASE, TAKE_BUILDING_BASE, TAKE_NOTHING = 0, 2, 8, 56
START_BASE, PAY_BASE, CREDIT_BASE, END_TURN = 57, 109, 113, 117
DISCARD_GOOD_BASE, DISCARD_BUILDING_BASE = 118, 122
GOODS = t.GOOD_NAMES
CITY_TILES = {"Visby": t.VISBY, "Tallinn": t.TALLINN, "Stockholm": t.STOCKHOLM, "Danzig": t.DANZIG, "Riga": t.RIGA}
SYMBOL_TILES = {"Knight": t.KNIGHT, "Merchant": t.MERCHANT}


class RigaHeuristic(Bot):
    """Worth per ducat for taking, cheapest sufficient payment for building (module doc)."""

    name = "heuristic"

    def act(self, observation: dict[str, Any], legal_actions: list[int]) -> int:
        handler = {
            "keep_start_building": self._keep,
            "take": self._take,
            "build": self._build,
            "discard": self._discard,
        }.get(observation["phase"])
        choice = handler(observation, legal_actions) if handler else None
        return choice if choice in legal_actions else legal_actions[0]

    # -- what things are worth ---------------------------------------------------------------

    def _tableau(self, obs: dict[str, Any]) -> tuple[int, ...]:
        return tuple(t.CARD_BY_CODE[code] for code in obs["players"][self.seat]["tableau"])

    def _worth(self, obs: dict[str, Any], card_id: int) -> float:
        """VP + benefit over the years left + a point per Grand Master tile it counts towards."""
        card = t.CARDS[card_id]
        years_left = obs["years"] - obs["year"] + (0.5 if obs["season"] in ("setup", "spring", "summer") else 0)
        benefit = {
            t.FACTOR: 0.3 * years_left,
            t.DISCOUNT: 0.25 * years_left,
            t.EXTRA_DRAW: 0.35 * years_left,
            t.CREDIT: 1.0,
            t.HAND_LIMIT: 0.1 * years_left,
            t.EXCHANGE: 0.15 * years_left,
        }.get(card.benefit, 0.0)
        tiles = {tile["tile"] for tile in obs["tiles"]}
        city_tile = any(CITY_TILES.get(name) == card.city for name in tiles)
        symbol_tile = any(SYMBOL_TILES.get(name) == card.symbol for name in tiles)
        return card.vp + benefit + 1.0 * city_tile + 1.0 * symbol_tile

    def _power(self, obs: dict[str, Any], card_id: int) -> int:
        """Ducats our hand (goods and unused credits) is worth towards this card."""
        tableau, city = self._tableau(obs), t.CARDS[card_id].city
        goods = sum(good_value(tableau, g, city) * obs["hand_goods"][name] for g, name in enumerate(GOODS))
        used = set(obs["players"][self.seat]["credits_used"])
        credits = sum(t.CARDS[c].arg for c in tableau if c in t.CREDIT_INDEX and t.CARDS[c].code not in used)
        return goods + credits

    def _per_ducat(self, obs: dict[str, Any], card_id: int) -> float:
        return self._worth(obs, card_id) / max(1, build_cost(self._tableau(obs), card_id))

    # -- decisions ---------------------------------------------------------------------------

    def _keep(self, obs: dict[str, Any], legal: list[int]) -> int:
        choices = [t.CARD_BY_CODE[code] for code in obs["start_choice"]]
        return KEEP_BASE + max(range(len(choices)), key=lambda i: self._per_ducat(obs, choices[i]))

    def _take(self, obs: dict[str, Any], legal: list[int]) -> int:
        rows = [a for a in legal if ROW_BASE <= a < TAKE_BUILDING_BASE]
        buildings = [a for a in legal if TAKE_BUILDING_BASE <= a < TAKE_NOTHING]
        hand = [t.CARD_BY_CODE[code] for code in obs["hand_buildings"]]
        best_building = max(buildings, key=lambda a: self._per_ducat(obs, a - TAKE_BUILDING_BASE), default=None)
        if best_building is not None and self._wants_building(obs, hand, best_building - TAKE_BUILDING_BASE):
            return best_building
        if rows:
            return max(rows, key=lambda a: self._row_value(obs, obs["rows"][a - ROW_BASE], hand))
        return best_building if best_building is not None else TAKE_NOTHING

    def _wants_building(self, obs: dict[str, Any], hand: list[int], card_id: int) -> bool:
        last_autumn = obs["year"] == obs["years"] and obs["season"] == "autumn"
        if last_autumn and self._power(obs, card_id) < build_cost(self._tableau(obs), card_id):
            return False  # it would stay in hand: -2
        if not hand:
            return True
        spare = sum(self._power(obs, c) - build_cost(self._tableau(obs), c) for c in hand[:1])
        return len(hand) < 2 and spare >= 4 and self._per_ducat(obs, card_id) >= 0.4

    def _row_value(self, obs: dict[str, Any], row: list[str], hand: list[int]) -> float:
        """Ducats the row adds towards the buildings in hand (base values when there are none)."""
        tableau = self._tableau(obs)
        cities = {t.CARDS[c].city for c in hand} or {t.RIGA}
        return sum(max(good_value(tableau, GOODS.index(name), city) for city in cities) for name in row)

    def _build(self, obs: dict[str, Any], legal: list[int]) -> int:
        if obs["pending_build"] is not None:
            return self._pay(obs, legal)
        starts = [a for a in legal if START_BASE <= a < PAY_BASE]
        worth_building = [a for a in starts if self._worth(obs, a - START_BASE) >= 1.0]
        if not worth_building:
            return END_TURN
        return max(worth_building, key=lambda a: (self._worth(obs, a - START_BASE), -a))

    def _pay(self, obs: dict[str, Any], legal: list[int]) -> int:
        pending, tableau = obs["pending_build"], self._tableau(obs)
        card = t.CARD_BY_CODE[pending["card"]]
        city = t.CARDS[card].city
        paid = sum(good_value(tableau, GOODS.index(g), city) * n for g, n in pending["paid_goods"].items())
        paid += sum(t.CARDS[t.CARD_BY_CODE[code]].arg for code in pending["paid_credits"])
        missing = pending["cost"] - paid
        goods = {a: good_value(tableau, a - PAY_BASE, city) for a in legal if PAY_BASE <= a < CREDIT_BASE}
        if goods:
            completing = [a for a, value in goods.items() if value >= missing]
            if completing:
                return min(completing, key=lambda a: (goods[a], a))
            return max(goods, key=lambda a: (goods[a], -a))
        return min(legal)

    def _discard(self, obs: dict[str, Any], legal: list[int]) -> int:
        goods = [a for a in legal if DISCARD_GOOD_BASE <= a < DISCARD_BUILDING_BASE]
        if goods:
            return min(goods, key=lambda a: (t.BASE_VALUE[a - DISCARD_GOOD_BASE], a))
        return min(legal, key=lambda a: (self._worth(obs, a - DISCARD_BUILDING_BASE), a))


def estimate_returns(observation: dict[str, Any]) -> list[float]:
    """The running score, plus what goods and buildings in hand should still turn into (roughly
    one VP per goods card, and a building in hand is likely built rather than a -2)."""
    return [
        score + 1.0 * player["goods_in_hand"] + 1.5 * player["buildings_in_hand"]
        for score, player in zip(observation["scores"], observation["players"])
    ]
