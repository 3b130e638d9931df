"""Riviera's drawn table in a real browser (Debian's Chromium): stored matches stepped through
every position and view without a script error, and what is drawn agrees with that view's
observation at every position — hands (face down where the view may not see them), columns,
dice, scores, the acting seats — so no seat's view and no public view draws a hidden card."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from engine.riviera.components import card_name
from tests.dashboards.stored import Stored, served
from tests.dashboards.test_browser import page, wait_shown  # noqa: F401 - fixture

pytestmark = pytest.mark.browser

# 2 players: a crash, Last Chance, the golden die, a card 9, a swap; 3 players: a reservation too.
MATCHES = [("riviera", ["random", "<img src=x onerror=alert(1)>"], 1, None),
           ("riviera", ["random", "random#2", "random#3"], 3, None)]
SAMPLE = 15  # the views not stepped through every position are checked at every 15th

# Every drawn seat area at one position: its score, whether it acts, its hand and column, and the table's dice.
DRAWN = """async (positions) => {
  const viewer = window.replayViewer, out = [];
  const cards = (area, zone) => [...area.querySelectorAll(`.${zone} .card`)]
    .map((c) => c.classList.contains("back") ? null : c.dataset.card);
  for (const n of positions) {
    await viewer.show(n);
    const board = document.getElementById("board");
    out.push({
      seats: [...board.querySelectorAll("[data-seat]")].map((a) => ({
        seat: Number(a.dataset.seat), score: a.dataset.score, acting: a.classList.contains("acting"),
        hand: cards(a, "hand"), column: cards(a, "column") })),
      dice: Object.fromEntries([...board.querySelectorAll(".rv-dice .die[data-face]")]
        .map((d) => [d.dataset.die, Number(d.dataset.face)])),
      shown: document.getElementById("replay").dataset.shown,
    });
  }
  return out;
}"""


@pytest.fixture(scope="module")
def riviera(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, list[Stored]]]:
    with served(tmp_path_factory.mktemp("riviera") / "arena.db", MATCHES) as served_matches:
        yield served_matches


def drawn_positions(page: Any, base: str, match: Stored, view: str | int, positions: list[int]) -> list[dict[str, Any]]:  # noqa: F811
    """What the board draws at `positions` of `match` in `view`, stepped through in one go."""
    page.goto(f"{base}/matches/{match.id}?view={view}")
    wait_shown(page, 0, view)
    return page.evaluate(DRAWN, positions)


def expected_hand(observation: dict[str, Any], seat: int) -> tuple[int, list[str], set[str]]:
    """A seat's hand size, the cards this view must draw face up in it, and those it may."""
    if observation.get("seat") == seat:
        own = [card_name(c) for c in observation["hand"]]
        return len(own), own, set(own)
    known = {card_name(c) for c in (observation.get("known_hands") or [[]] * (seat + 1))[seat]}
    return observation["hand_sizes"][seat], [], known


def check_position(drawn: dict[str, Any], observation: dict[str, Any], acting: list[int]) -> None:
    assert [area["seat"] for area in drawn["seats"]] == list(range(observation["num_players"]))
    for area in drawn["seats"]:
        seat = area["seat"]
        size, must, may = expected_hand(observation, seat)
        face_up = [card for card in area["hand"] if card is not None]
        assert len(area["hand"]) == size
        assert face_up == must or (not must and set(face_up) <= may), (seat, face_up)
        assert area["column"] == [card_name(c) for c in observation["columns"][seat]]
        assert area["score"] == str(observation["scores"][seat])
        assert area["acting"] == (seat in acting)
    dice = {colour: value for colour, value in observation["dice"].items() if value is not None}
    if observation["gold"] is not None:
        dice["Au"] = observation["gold"]
    assert drawn["dice"] == dice


# (match, view, every position or a sample): each match is stepped through once in full.
VIEWS = [(0, 1, True), (0, "public", False), (0, 0, False),
         (1, "public", True), (1, 0, False), (1, 1, False), (1, 2, False)]


@pytest.mark.parametrize(("match_index", "view", "every"), VIEWS)
def test_the_board_draws_what_the_view_saw(page: Any, riviera: tuple[str, list[Stored]],  # noqa: F811
                                           match_index: int, view: str | int, every: bool) -> None:
    base, matches = riviera
    match = matches[match_index]
    positions = list(range(0, match.replay.positions, 1 if every else SAMPLE))
    drawn = drawn_positions(page, base, match, view, positions)
    assert [d["shown"] for d in drawn] == [f"{n}:{view}" for n in positions]
    for position, at in zip(positions, drawn):
        acting = list(match.replay.states[position].acting_players())
        check_position(at, match.view(position, view), acting)
        for area in at["seats"]:  # a card face up in another seat's hand is one that seat holds
            held = {card_name(c) for c in match.view(position, area["seat"])["hand"]}
            assert {card for card in area["hand"] if card is not None} <= held


def test_the_public_view_draws_every_hand_face_down(page: Any, riviera: tuple[str, list[Stored]]) -> None:  # noqa: F811
    base, matches = riviera
    match = matches[1]
    position = next(n for n, state in enumerate(match.replay.states)
                    if state.observation(0)["phase"] == "choose" and state.observation(0)["turn"] > 2)
    page.goto(f"{base}/matches/{match.id}?view=public&position={position}")
    wait_shown(page, position, "public")
    hands = [{card_name(c) for c in match.view(position, seat)["hand"]} for seat in range(3)]
    assert page.locator("#board .hand .card.back").count() == sum(len(hand) for hand in hands) > 0
    assert page.locator("#board .hand .card:not(.back)").count() == 0
    page.goto(f"{base}/matches/{match.id}?view=2&position={position}")
    wait_shown(page, position, 2)
    shown = set(page.eval_on_selector_all("#board [data-seat='2'] .hand .card", "cs => cs.map(c => c.dataset.card)"))
    assert shown == hands[2]
    assert page.locator("#board [data-seat='2'] .rv-status").inner_text() in {"IN", "STOPPED", "CRASHED"}

