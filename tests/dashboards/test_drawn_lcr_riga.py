"""The drawn tables of Lost Cities: Rivals and Riga in a real browser (Debian's Chromium), on
matches played by real tournaments into a database of their own: every position draws without a
script error; what is drawn agrees with the observation of the view; no view draws a card face up
that its observation hides (a Riga hand beyond what is publicly known, a start choice, a card
put under the building deck)."""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest

from arena.match.executor import LocalExecutor
from arena.store import Store
from arena.tournament.driver import play_tournament, start_tournament
from arena.tournament.schedule import TournamentConfig
from dashboards.replay import PUBLIC, Replay
from dashboards.screenshot import serve
from engine.riga import components as tables
from tests.dashboards.test_browser import page, wait_shown  # noqa: F401  (the fixture: fails on any console error)

pytestmark = pytest.mark.browser

TABLES = (("lost_cities_rivals", 2), ("lost_cities_rivals", 4), ("riga", 2), ("riga", 3))
STEPPED = (("lost_cities_rivals", 2), ("riga", 2))  # stepped through every position (the others: samples)
SAMPLES = 10  # positions per match checked against the observations, in every view


@dataclasses.dataclass(frozen=True)
class Played:
    """One stored match per (game, players) of TABLES, replayed, and the dashboard serving them."""

    base: str
    matches: dict[tuple[str, int], tuple[int, Replay]]


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Played]:
    store = Store(f"sqlite:///{tmp_path_factory.mktemp('drawn') / 'arena.db'}")
    matches = {}
    for game, players in TABLES:
        entrants = ("heuristic", "random", *(f"random#{n}" for n in range(2, players)))
        config = TournamentConfig(game_id=game, players_per_match=players, entrants=entrants, seed=7)
        tournament = start_tournament(store, config, f"{game} for {players}")
        play_tournament(store, tournament, LocalExecutor())
        match = store.matches(tournament_id=tournament)[0]
        names = [seat.entrant for seat in sorted(match.seats, key=lambda s: s.seat)]
        matches[(game, players)] = (match.id, Replay.from_record(store.match_record(match.id), names))
    with serve(store) as base:
        yield Played(base, matches)


def _open(page: Any, played: Played, table: tuple[str, int], view: str | int = PUBLIC) -> Replay:
    match, replay = played.matches[table]
    page.goto(f"{played.base}/matches/{match}?view={view}")
    wait_shown(page, 0, view)
    return replay


def _show(page: Any, position: int) -> None:
    page.evaluate("n => window.replayViewer.show(n)", position)


def _samples(replay: Replay) -> list[int]:
    last = replay.positions - 1
    return sorted({round(k * last / (SAMPLES - 1)) for k in range(SAMPLES)})


@pytest.mark.parametrize("table", STEPPED, ids=[f"{g}-{n}p" for g, n in STEPPED])
def test_every_position_is_drawn_without_a_script_error(page: Any, played: Played, table: tuple[str, int]) -> None:
    replay = _open(page, played, table)
    players = table[1]
    wrong = page.evaluate("""async ([last, players]) => {
        const wrong = [];
        for (let n = 0; n <= last; n++) {
            await window.replayViewer.show(n);
            const board = document.getElementById('board');
            if (board.hidden || board.querySelectorAll('[data-seat]').length !== players
                || document.getElementById('replay').dataset.shown !== `${n}:public`) wrong.push(n);
        }
        return wrong;
    }""", [replay.positions - 1, players])
    assert wrong == []


# -- Lost Cities: Rivals -------------------------------------------------------------------------

LCR_DRAWN = """() => {
    const cards = (root) => [...root.querySelectorAll('.card:not(.back)')].map(c => c.dataset.card);
    const seats = [...document.querySelectorAll('#board [data-seat]')].map(s => ({
        seat: Number(s.dataset.seat), score: Number(s.querySelector('[data-score]').dataset.score),
        coins: Number(s.querySelector('[data-coins]').dataset.coins), acting: s.classList.contains('acting'),
        expeditions: Object.fromEntries([...s.querySelectorAll('[data-colour]')]
          .map(e => [e.dataset.colour, cards(e)])),
        starting: [...s.querySelectorAll('.card.starting')].map(c => c.dataset.card[0]).sort(),
    }));
    const row = (title) => [...document.querySelectorAll('#board .lcr-row')]
      .find(r => r.querySelector('h4').textContent === title);
    const auction = document.querySelector('#board .lcr-auction');
    return {
        seats, display: cards(row('Display')), box: cards(row('Box')),
        centre: Number(document.querySelector('#board [data-centre]').dataset.centre),
        backs: [...document.querySelectorAll('#board .card.back')].map(b => Number(b.dataset.count)),
        faceUp: document.querySelectorAll('#board .card:not(.back)').length,
        auction: auction && [Number(auction.dataset.highBid), Number(auction.dataset.highBidder),
                             [...auction.querySelectorAll('.lcr-bidder.passed')].map(b => Number(b.dataset.bidder))],
    };
}"""


def _lcr_expected(frame: dict[str, Any]) -> dict[str, Any]:
    state = frame["state"]
    seats = [
        {"seat": p, "score": state["scores"][p], "coins": state["coins"][p], "acting": p in frame["acting"],
         "expeditions": {c: [f"{c}*"] * e["wagers"] + [f"{c}{n}" for n in e["numbers"]] for c, e in exps.items()},
         "starting": sorted(state["starting_wagers"][p])}
        for p, exps in enumerate(state["expeditions"])
    ]
    auction = state["auction"]
    placed = sum(e["wagers"] + len(e["numbers"]) for exps in state["expeditions"] for e in exps.values())
    return {
        "seats": seats, "display": state["display"], "box": state["box"], "centre": state["centre"],
        "backs": [state["pile_cards_left"]] + [20] * state["piles_to_come"],
        "faceUp": len(state["display"]) + len(state["box"]) + placed,
        "auction": auction and [auction["high_bid"], auction["high_bidder"],
                                [p for p in range(state["num_players"]) if p not in auction["in"]]],
    }


@pytest.mark.parametrize("players", [2, 4])
def test_lost_cities_rivals_draws_what_each_view_observes(page: Any, played: Played, players: int) -> None:
    for view in (PUBLIC, players - 1):  # every seat observes the same (rules §5): two views suffice
        replay = _open(page, played, ("lost_cities_rivals", players), view)
        for position in _samples(replay):
            _show(page, position)
            assert page.evaluate(LCR_DRAWN) == _lcr_expected(replay.frame(position, view)), (view, position)


# -- Riga ----------------------------------------------------------------------------------------

RIGA_DRAWN = """() => {
    const cards = (root) => root ? [...root.querySelectorAll('.card:not(.back)')].map(c => c.dataset.card) : [];
    const seats = [...document.querySelectorAll('#board [data-seat]')].map(s => ({
        seat: Number(s.dataset.seat), score: Number(s.querySelector('[data-score]').dataset.score),
        acting: s.classList.contains('acting'),
        built: [...s.querySelectorAll('.rg-tableau .card:not(.unbuilt)')].map(c => c.dataset.card),
        supply: [...s.querySelectorAll('.rg-tableau .card.unbuilt')].map(c => c.dataset.card),
        hand: cards(s.querySelector('.rg-hand')).sort(), handBacks: s.querySelectorAll('.rg-hand .card.back').length,
        choice: cards(s.querySelector('.rg-choice')), choiceBacks: s.querySelectorAll('.rg-choice .card.back').length,
        money: s.querySelector('[data-money]') ? Number(s.querySelector('[data-money]').dataset.money) : null,
    }));
    return {
        seats, rows: [...document.querySelectorAll('#board .rg-row')].map(r => cards(r)),
        tiles: [...document.querySelectorAll('#board [data-tile]')]
          .map(t => [t.dataset.tile, t.dataset.side, Number(t.dataset.holder)]),
        decks: [...document.querySelectorAll('#board .rg-deck')].map(d => Number(d.dataset.count)),
        year: Number(document.querySelector('#board [data-year]').dataset.year),
        season: document.querySelector('#board [data-season]').dataset.season,
        faceUp: [...document.querySelectorAll('#board .card:not(.back)')].map(c => c.dataset.card),
    };
}"""


def _goods(counts: dict[str, int]) -> list[str]:
    return [good for good, n in counts.items() for _ in range(n)]


def _riga_seat(state: dict[str, Any], frame: dict[str, Any], p: int) -> dict[str, Any]:
    info, own = state["players"][p], frame["view"] == p
    hand = (_goods(state["hand_goods"]) + state["hand_buildings"] if own
            else _goods(info["known_goods"]) + info["known_buildings"])
    choosing = state["start_choice_size"] and state["active"] == p
    choice = state.get("start_choice", []) if choosing else []
    return {
        "seat": p, "score": state["scores"][p], "acting": p in frame["acting"],
        "built": sorted(info["tableau"], key=lambda c: "VTSDR".index(c[0])), "supply": info["riga_supply"],
        "hand": sorted(hand), "handBacks": info["goods_in_hand"] + info["buildings_in_hand"] - len(hand),
        "choice": choice, "choiceBacks": state["start_choice_size"] - len(choice) if choosing else 0,
        "money": info.get("money", _money(state, info) if own else None),
    }


def _money(state: dict[str, Any], info: dict[str, Any]) -> int:
    """The Money tile's count of the viewing seat (rules §4.3), from the engine's own tables."""
    goods = sum(tables.BASE_VALUE[tables.GOOD_NAMES.index(g)] * n for g, n in state["hand_goods"].items())
    credits = [c for c in info["tableau"] if tables.CARDS[tables.CARD_BY_CODE[c]].benefit == tables.CREDIT]
    return goods + sum(tables.CARDS[tables.CARD_BY_CODE[c]].arg for c in credits if c not in info["credits_used"])


def _riga_expected(frame: dict[str, Any]) -> dict[str, Any]:
    state = frame["state"]
    seats = [_riga_seat(state, frame, p) for p in range(len(state["players"]))]
    return {"seats": seats, "rows": state["rows"], "year": state["year"], "season": state["season"],
            "decks": [state["goods_deck_size"], state["building_deck_size"]],
            "tiles": [[t["tile"], t["side"], t["holder"]] for t in state["tiles"]]}


def _secrets(replay: Replay, position: int, seat: int) -> set[str]:
    """The building cards only `seat` may see at `position`: its hand beyond the publicly known
    part, its cards under the building deck, its start choice (a card being built is public)."""
    state = replay.frame(position, seat)["state"]
    known = set(state["players"][seat]["known_buildings"])
    if state["pending_build"]:
        known.add(state["pending_build"]["card"])
    return (set(state["hand_buildings"]) - known) | set(state["my_cards_under_deck"]) | set(state["start_choice"])


@pytest.mark.parametrize("players", [2, 3])
def test_riga_draws_what_each_view_observes_and_hides_the_rest(page: Any, played: Played, players: int) -> None:
    secrets_seen = 0
    for view in (PUBLIC, *range(players)):
        replay = _open(page, played, ("riga", players), view)
        for position in _samples(replay):
            _show(page, position)
            drawn, frame = page.evaluate(RIGA_DRAWN), replay.frame(position, view)
            face_up = Counter(drawn.pop("faceUp"))
            assert drawn == _riga_expected(frame), (view, position)
            others = [s for s in range(players) if s != view]
            hidden = set().union(*(_secrets(replay, position, s) for s in others))
            if replay.states[position].kind.value != "terminal":  # at the end every hand is shown
                assert not hidden & set(face_up), (view, position, hidden & set(face_up))
                secrets_seen += len(hidden)
    assert secrets_seen > 0  # the sample held hidden cards to look for


def test_riga_card_table_matches_the_engine(page: Any, played: Played) -> None:
    _open(page, played, ("riga", 2))
    drawn = page.evaluate("() => window.ArenaGames.renderers.riga.cards")
    engine = {
        c.code: {"name": c.name, "cost": c.cost, "vp": c.vp,
                 "symbol": None if c.symbol == tables.NONE else tables.SYMBOL_NAMES[c.symbol],
                 "credit": c.arg if c.benefit == tables.CREDIT else 0}
        for c in tables.CARDS
    }
    assert {code: {k: card[k] for k in ("name", "cost", "vp", "symbol", "credit")}
            for code, card in drawn.items()} == engine
