"""A large ladder history built fast for bench/scale.py: real records, many entrants, bulk writes.

A few hundred 4-player Riga matches are really played (the match runner, four built-in `random`
seats); their records are reused for every stored match with other entrants, seeds and keys. A
stored record is its template as played and encoded once (`MatchResult.encoded_record`, what the
worker that plays a match hands the writer): its seats name the random bots that played it, the
match's row and seats name the drawn entrants, and it replays as played. The entrants are
registered bots `b00001`..`bNNNNN` (`Store.register_bots`, one transaction), each with one version
(`b00001@1`), so the ladder's field, the bot pages and the leaderboard see the field a real ladder
would. Each bot has a
hidden strength (normal, sd 200 Elo); a match's entrants take the record's ranks in the order of
strength plus Gumbel noise (a Plackett-Luce draw), so the ratings have something to find.

Everything is written through the store's public interface (`Store.record_matches`, in batches):
the writer only inserts, as it does behind workers that encode (arena/match/executor.py).
"""

from __future__ import annotations

import argparse
import gc
import json
import math
import random
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.ladder.field import LadderConfig
from arena.match.runner import run_match
from arena.record_encoding import encode_record
from arena.store import LADDER_KIND, MatchResult, SeatResult, Store

GAME, PLAYERS, RULESET = "riga", 4, "riga@1"
STRENGTH_SD = 200.0  # Elo: the spread of the bots' hidden strengths
PER_ELO = math.log(10) / 400


@dataclass(frozen=True)
class History:
    """What the measurements need to know of the history they run on."""

    url: str
    tournament_id: int
    matches: int
    bots: int
    write_seconds: float  # the time record_matches took for all of it
    batch: int
    built: int = 0  # the matches the build wrote in write_seconds (a kept history grows after it); 0: `matches`


def bot_name(number: int) -> str:
    return f"b{number:05d}"


def play_templates(count: int, seed: int = 1) -> list[dict[str, Any]]:
    """`count` real Riga records, four random bots each (the records every stored match reuses).

    They stay for the whole run, some million Python objects that no driver holds: they are moved
    out of the garbage collector's generations (gc.freeze), or every full collection would walk
    them inside the timed writes and rerates (10-25 % of the write rate at 1M / 10k, BENCHMARKS.md)."""
    templates = [run_match(GAME, ["random"] * PLAYERS, seed=seed + i).to_json() for i in range(count)]
    gc.collect()
    gc.freeze()
    return templates


def register_bots(store: Store, count: int) -> None:
    """`count` registered bots with a command, so each has version 1 (`bNNNNN@1`): the ladder's field."""
    for first in range(1, count + 1, 10_000):
        names = [bot_name(n) for n in range(first, min(count, first + 9_999) + 1)]
        store.register_bots(names, command="python3 bot.py")


def ladder_tournament(store: Store, total: int) -> int:
    config = LadderConfig(GAME, PLAYERS, anchors=(), seed=1).to_json()
    return store.create_tournament(GAME, RULESET, LADDER_KIND, config, total, name="scale bench ladder")


class Generator:
    """Match results from the templates with drawn entrants, seeds and ranks (deterministic per seed)."""

    def __init__(self, templates: list[dict[str, Any]], bots: int, tournament_id: int, seed: int = 7) -> None:
        self.templates, self.bots, self.tournament_id = templates, bots, tournament_id
        self.encoded = [encode_record(template) for template in templates]  # as the workers that played them would
        self.decisions = [sum(step.get("actions") is not None for step in t["steps"]) for t in templates]
        self.rng = random.Random(seed)
        self.strength = [self.rng.gauss(0.0, STRENGTH_SD) for _ in range(bots + 1)]

    def result(self, index: int) -> MatchResult:
        which = index % len(self.templates)
        template = self.templates[which]
        drawn = self.rng.sample(range(1, self.bots + 1), PLAYERS)
        # best performance first: strength on the logistic's scale plus Gumbel noise
        by_performance = sorted(drawn,
                                key=lambda b: -(self.strength[b] * PER_ELO - math.log(-math.log(self.rng.random()))))
        seats_by_rank = sorted(range(PLAYERS), key=lambda s: template["ranks"][s])
        entrant_of = {seat: f"{bot_name(by_performance[place])}@1" for place, seat in enumerate(seats_by_rank)}
        seed, chance_seed = self.rng.getrandbits(63), self.rng.getrandbits(63)
        seats = [SeatResult(seat=i, entrant=entrant_of[i], spec=entrant_of[i], kind="submitted",
                            version=f"registered command {entrant_of[i]}", score=template["returns"][i],
                            rank=template["ranks"][i])
                 for i in range(PLAYERS)]
        return MatchResult(tournament_id=self.tournament_id, match_index=index, round=0, table_no=index, rotation=0,
                           game_id=GAME, ruleset=RULESET, seed=seed, chance_seed=chance_seed, seats=seats,
                           record=template, encoded_record=self.encoded[which], decisions=self.decisions[which],
                           duration_ms=20.0)

    def batches(self, start: int, stop: int, size: int) -> Iterator[list[MatchResult]]:
        for first in range(start, stop, size):
            yield [self.result(i) for i in range(first, min(stop, first + size))]


def write(store: Store, generator: Generator, start: int, stop: int, batch: int,
          written_hook: Callable[[list[MatchResult], int], None] | None = None) -> float:
    """Write matches start..stop-1 through Store.record_matches in batches; returns the seconds
    spent in record_matches alone (drawing the results is not the store's cost). `written_hook(batch,
    new)` after each batch: what a driver tells its LiveRerate."""
    spent = 0.0
    for results in generator.batches(start, stop, batch):
        began = time.perf_counter()
        written = store.record_matches(results)
        spent += time.perf_counter() - began
        assert written == len(results), f"wrote {written} of {len(results)} new matches"
        if written_hook is not None:
            written_hook(results, written)
    return spent


def build(url: str, matches: int, bots: int, templates: list[dict[str, Any]], batch: int,
          progress: bool = True) -> tuple[History, Generator]:
    """A fresh history at `url`: the bots, one ladder tournament, `matches` matches."""
    store = Store(url)
    began = time.perf_counter()
    register_bots(store, bots)
    tournament_id = ladder_tournament(store, matches)
    generator = Generator(templates, bots, tournament_id)
    if progress:
        print(f"  {bots:,} bots registered, {time.perf_counter() - began:.0f} s", flush=True)
    spent, step = 0.0, max(batch, 50_000 // batch * batch)
    for start in range(0, matches, step):
        spent_here = write(store, generator, start, min(matches, start + step), batch)
        spent += spent_here
        if progress:
            print(f"  … {min(matches, start + step):,} matches, {time.perf_counter() - began:.0f} s "
                  f"({(min(matches, start + step) - start) / spent_here:,.0f} written/s in the last ones)", flush=True)
    # A ladder runs for ever, but the dashboard shows a replay once its tournament has finished (duplicate
    # play: api.check_tournament_finished): finished, so that the replay pages are measured too.
    store.set_tournament_status(tournament_id, "finished")
    store.engine.dispose()
    return History(url, tournament_id, matches, bots, spent, batch), generator


def kept_descriptions(text_: str) -> list[tuple[Path, dict[str, Any]]]:
    """`A.json,B.json` -> each kept history's path and description (what --keep wrote beside it)."""
    described = []
    for name in text_.split(","):
        path = Path(name)
        try:
            fields = json.loads(path.read_text())
        except (OSError, ValueError) as error:
            raise argparse.ArgumentTypeError(f"no kept history at {name!r} ({error.__class__.__name__}): give the "
                                             ".json files that --keep wrote beside its histories") from None
        if not isinstance(fields, dict) or "url" not in fields:
            raise argparse.ArgumentTypeError(f"{name!r} does not describe a kept history (no \"url\"): give the "
                                             ".json files that --keep wrote beside its histories")
        described.append((path, fields))
    return described
