"""Gang of Dice's drawn table in a real browser (Debian's Chromium): stored matches stepped
through every position without a script error, and what is drawn agrees with the view's
observation — each seat's dice faces (and the dice still rolling), pools (hidden ones as "?"),
the warning card, the pot, the acting seat."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.dashboards.stored import Stored, served
from tests.dashboards.test_browser import page, wait_shown  # noqa: F401 - fixture

pytestmark = pytest.mark.browser

# 3 players to the end of round 12 (bonus dice, a pot carried over, a seat eliminated); 2 players
# with hidden pools (each seat sees only its own count until the game is over).
MATCHES = [("gang_of_dice", ["random", "random#2", "<img src=x onerror=alert(1)>"], 3, None),
           ("gang_of_dice", ["random", "random#2"], 2, {"hide_pools": True})]
SAMPLE = 15  # the views not stepped through every position are checked at every 15th
FACE_CODES = {"G": 0, "1": 1, "2": 2, "3": 3, "4": 4, "5": 5}

DRAWN = """async (positions) => {
  const viewer = window.replayViewer, out = [];
  for (const n of positions) {
    await viewer.show(n);
    const board = document.getElementById("board");
    const card = board.querySelector(".gd-warning[data-card]");
    out.push({
      seats: [...board.querySelectorAll("[data-seat]")].map((a) => ({
        seat: Number(a.dataset.seat), score: a.dataset.score, acting: a.classList.contains("acting"),
        faces: [...a.querySelectorAll(".die[data-face]")].map((d) => d.dataset.face),
        rolling: a.querySelectorAll(".die-rolling").length })),
      card: card ? card.dataset.card : null,
      pot: board.querySelector(".gd-pot b").textContent,
      shown: document.getElementById("replay").dataset.shown,
    });
  }
  return out;
}"""


@pytest.fixture(scope="module")
def gang(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, list[Stored]]]:
    with served(tmp_path_factory.mktemp("gang_of_dice") / "arena.db", MATCHES) as served_matches:
        yield served_matches


def counts(faces: list[str]) -> list[int]:
    """Drawn faces as the observation counts them: [G, ones, twos, threes, fours, fives]."""
    out = [0] * 6
    for face in faces:
        out[FACE_CODES[face]] += 1
    return out


def check_position(drawn: dict[str, Any], observation: dict[str, Any], acting: list[int]) -> None:
    assert sorted(area["seat"] for area in drawn["seats"]) == list(range(len(observation["active"])))
    for area in drawn["seats"]:
        seat = area["seat"]
        faces = observation["faces"][seat]
        assert counts(area["faces"]) == (faces or [0] * 6), seat
        rolling = observation["dice_to_roll"] if observation["to_move"] == seat else 0
        assert area["rolling"] == rolling
        pool = (observation.get("scores") or [None] * (seat + 1))[seat]  # hidden pools: not public
        assert area["score"] == ("" if pool is None else str(pool))
        assert area["acting"] == (seat in acting)
    assert drawn["card"] == (observation["card"]["id"] if observation["card"] else None)
    assert drawn["pot"] == str(observation["pot"])


# (match, view, every position or a sample): each match is stepped through once in full.
VIEWS = [(0, "public", True), (0, 1, False), (1, 0, True), (1, "public", False), (1, 1, False)]


@pytest.mark.parametrize(("match_index", "view", "every"), VIEWS)
def test_the_board_draws_what_the_view_saw(page: Any, gang: tuple[str, list[Stored]],  # noqa: F811
                                           match_index: int, view: str | int, every: bool) -> None:
    base, matches = gang
    match = matches[match_index]
    positions = list(range(0, match.replay.positions, 1 if every else SAMPLE))
    page.goto(f"{base}/matches/{match.id}?view={view}")
    wait_shown(page, 0, view)
    drawn = page.evaluate(DRAWN, positions)
    assert [d["shown"] for d in drawn] == [f"{n}:{view}" for n in positions]
    for position, at in zip(positions, drawn):
        acting = list(match.replay.states[position].acting_players())
        check_position(at, match.view(position, view), acting)


def test_hidden_pools_are_drawn_as_unknown(page: Any, gang: tuple[str, list[Stored]]) -> None:  # noqa: F811
    base, matches = gang
    match = matches[1]
    position = match.replay.positions // 2
    page.goto(f"{base}/matches/{match.id}?view=0&position={position}")
    wait_shown(page, position, 0)
    assert page.get_attribute("#board [data-seat='1']", "data-score") == ""
    assert page.inner_text("#board [data-seat='1'] .gd-pool b") == "?"
    assert page.get_attribute("#board [data-seat='0']", "data-score") == str(match.view(position, 0)["scores"][0])


def test_the_warning_card_reads_as_words(page: Any, gang: tuple[str, list[Stored]]) -> None:  # noqa: F811
    base, matches = gang
    match = matches[0]
    position = next(n for n, state in enumerate(match.replay.states) if state.observation(0)["card"])
    card = match.view(position, "public")["card"]
    page.goto(f"{base}/matches/{match.id}?position={position}")
    wait_shown(page, position, "public")
    words = page.inner_text("#board .gd-warning .words")
    assert words.startswith("Busts on ") and card["colour"] in words
    assert "checked after every roll" in words if card["colour"] == "yellow" else "on the final dice" in words
