"""Pairwise totals in growing arrays (`PairArrays`), the memory they live in, and what is known of
them as a graph (`blocks`, `components`)."""

from __future__ import annotations

import ctypes
import ctypes.util
from collections.abc import Iterable, Iterator, Mapping, Sequence
from itertools import chain
from typing import Protocol

import numpy as np
from scipy.sparse import csr_matrix  # type: ignore[import-untyped]
from scipy.sparse.csgraph import connected_components  # type: ignore[import-untyped]

from arena.rating_fit.model import PRIOR_DRAWS, Floats, Ints, Pairs


class Columns(Protocol):
    """Pair totals as columns (arena.store.PairColumns): first and second bot by number, weight,
    first's score, and each number's name."""

    @property
    def a(self) -> Ints: ...
    @property
    def b(self) -> Ints: ...
    @property
    def weight(self) -> Floats: ...
    @property
    def score(self) -> Floats: ...
    @property
    def names(self) -> Mapping[int, str]: ...


def keep_freed_memory() -> None:
    """Have glibc's malloc keep the memory the fit frees, for the next array to reuse (done once per
    process; nothing to do on another C library). A big field's fit makes hundreds of temporary
    arrays of tens of MB; by default each comes from a fresh mmap and goes back to the system when
    freed, so every one pays a page fault per 4 kB on first touch. On this project's VMs (Firecracker,
    free pages reported to the host) that costs ~0.6 s per 45 MB array: 25-60 times the arithmetic
    itself (BENCHMARKS.md, "The refit at 1M matches"). The process then holds its peak heap."""
    global _MEMORY_KEPT
    if _MEMORY_KEPT:
        return
    _MEMORY_KEPT = True
    name = ctypes.util.find_library("c")
    libc = ctypes.CDLL(name) if name else None
    if libc is None or not hasattr(libc, "mallopt") or not hasattr(libc, "gnu_get_libc_version"):
        return
    libc.mallopt(M_MMAP_MAX, 0)  # large blocks from the heap too, not one mmap each
    libc.mallopt(M_TRIM_THRESHOLD, 1 << 40)  # and the heap's free top kept, not given back


_MEMORY_KEPT = False
M_TRIM_THRESHOLD, M_MMAP_MAX = -1, -4  # glibc's mallopt parameters (malloc.h)
PAIR_KEY = 1 << 32  # a pair's key: a * PAIR_KEY + b (bot indices, a < b)
ROOM = 8  # stored totals read in leave room for an eighth more pairs (new pairs a live rating adds)
BLOCK = 1 << 18  # pairs a kernel takes at a time (`blocks`)


class PairArrays:
    """Pairwise totals (bot indices a < b, weight, a's score) in growing arrays, and each bot's games,
    wins, strikes and forfeits: everything the fit and the table need, added to as results come in
    (arena.rating.Results adds matches and the store's totals) without recomputing anything.

    A pair's slot in the arrays is found by its key: among `sorted_keys` (the bulk of a big field's
    pairs, sorted once: a numpy search, no Python object per pair) or in `recent` (the pairs added
    since, a dict; all sorted again once they are an eighth of the others). `fresh` collects the
    terms added since `take_fresh` last emptied it (arena.rating.LiveRate's local update)."""

    def __init__(self) -> None:
        keep_freed_memory()
        self.names: list[str] = []
        self.index: dict[str, int] = {}
        self.recent: dict[int, int] = {}  # pair key -> slot, the slots from `indexed` on
        self.sorted_keys, self.sorted_slots = np.zeros(0, np.int64), np.zeros(0, np.int64)
        self.indexed = 0  # the slots below this are in sorted_keys
        self.a, self.b = np.zeros(0, np.int64), np.zeros(0, np.int64)
        self.weight, self.score = np.zeros(0), np.zeros(0)  # the virtual draw included
        self.pairs = 0
        self.games: dict[str, int] = {}
        self.wins: dict[str, float] = {}
        self.strikes: dict[str, int] = {}
        self.forfeits: dict[str, int] = {}
        self.fresh: list[Pairs] | None = None  # kept once a list (LiveRate)
        self._groups: Ints | None = None
        self._groups_pairs = 0
        self.curvature = np.zeros(0)  # per bot, at the last table (arena.rating.rating_table's live update)

    def bot(self, name: str) -> int:
        if name not in self.index:
            self.index[name] = len(self.names)
            self.names.append(name)
            for counts in (self.games, self.wins, self.strikes, self.forfeits):
                counts[name] = 0
        return self.index[name]

    def add_pair(self, first: str, second: str, weight: float, score: float) -> None:
        """Add `weight` pairwise games between two bots in which `first` scored `score`."""
        self.add_pairs([first], [second], [weight], [score])

    def add_pairs(self, firsts: Sequence[str], seconds: Sequence[str], weights: Sequence[float],
                  scores: Sequence[float]) -> None:
        """`add_pair` for many at once (a batch of matches' pairs). Bots new to it are numbered in the
        order met."""
        self.add_indexed(*self._indexed(firsts, seconds, weights, scores))

    def add_columns(self, chunks: Iterable[Columns]) -> None:
        """A ruleset's stored totals, one per pair that met (millions on a big field), in chunks: each
        turned into bot indices before the next is read. Into an empty set they are copied in once,
        all chunks read (no pair is there twice): growing the arrays chunk by chunk touched twice
        the memory, and fresh memory is what costs here (`keep_freed_memory`)."""
        parts = list(self._numbered(chunks))
        if not parts:
            return
        if self.pairs or self.fresh is not None:
            self.add_indexed(*(np.concatenate(column) for column in zip(*parts, strict=True)))
            return
        count = sum(len(part[0]) for part in parts)
        self._grow(count + count // ROOM)
        for name, column in zip(("a", "b", "weight", "score"), zip(*parts, strict=True), strict=True):
            np.concatenate(column, out=getattr(self, name)[:count])
        self.pairs = count
        a, b, weight, score = self.arrays()
        swap = b < a
        if swap.any():  # a < b by name, not by number: a bot that met no one of lower number first
            a[swap], b[swap], score[swap] = b[swap], a[swap], weight[swap] - score[swap]
        weight += PRIOR_DRAWS  # each pair's virtual draw
        score += PRIOR_DRAWS / 2

    def _numbered(self, chunks: Iterable[Columns]) -> Iterator[tuple[Ints, Ints, Floats, Floats]]:
        """Each chunk with its entrants as bot indices (bots new to the set numbered as met)."""
        bots, numbering = np.zeros(0, np.int64), None  # bot index by entrant number, -1 if not met yet
        for chunk in chunks:
            if chunk.names is not numbering:  # the entrants numbered otherwise than in the chunk before
                bots, numbering = np.zeros(0, np.int64), chunk.names
            top = int(max(chunk.a.max(initial=-1), chunk.b.max(initial=-1)))
            if top >= len(bots):
                bots = np.concatenate([bots, np.full(top + 1 - len(bots), -1, np.int64)])
            unmet = np.concatenate([chunk.a[bots[chunk.a] < 0], chunk.b[bots[chunk.b] < 0]])
            for number in np.unique(unmet).tolist():
                bots[number] = self.bot(chunk.names[number])
            yield bots[chunk.a], bots[chunk.b], chunk.weight, chunk.score

    def _indexed(self, firsts: Sequence[str], seconds: Sequence[str], weights: Sequence[float],
                 scores: Sequence[float]) -> tuple[Ints, Ints, Floats, Floats]:
        if not self.index.keys() >= set(firsts) | set(seconds):
            for name in dict.fromkeys(chain.from_iterable(zip(firsts, seconds, strict=True))):
                self.bot(name)
        count = len(firsts)
        return (np.fromiter(map(self.index.__getitem__, firsts), np.int64, count),
                np.fromiter(map(self.index.__getitem__, seconds), np.int64, count),
                np.fromiter(weights, np.float64, count), np.fromiter(scores, np.float64, count))

    def add_indexed(self, i: Ints, j: Ints, weight: Floats, score: Floats) -> None:
        """Pairwise games by bot index (first, second, weight, first's score), any order, repeats allowed."""
        swap = j < i
        i, j, score = np.where(swap, j, i), np.where(swap, i, j), np.where(swap, weight - score, score)
        keys, where = np.unique(i * PAIR_KEY + j, return_inverse=True)
        weights = np.asarray(np.bincount(where, weight, len(keys)), dtype=np.float64)
        scores = np.asarray(np.bincount(where, score, len(keys)), dtype=np.float64)
        slots = self._slots(keys)
        new = slots < 0
        start, added = self.pairs, int(new.sum())
        self._grow(start + added)
        slots[new] = np.arange(start, start + added)
        self.a[start:start + added], self.b[start:start + added] = keys[new] // PAIR_KEY, keys[new] % PAIR_KEY
        self.weight[start:start + added], self.score[start:start + added] = 0.0, 0.0
        self.pairs += added
        weights, scores = weights + np.where(new, PRIOR_DRAWS, 0.0), scores + np.where(new, PRIOR_DRAWS / 2, 0.0)
        self.weight[slots] += weights  # a pair's first games bring its virtual draw
        self.score[slots] += scores
        if self.fresh is not None:
            self.fresh.append((keys // PAIR_KEY, keys % PAIR_KEY, weights, scores))
        if len(self.recent) + added > max(1024, self.indexed // 8):
            self.reindex()  # many new pairs: all sorted again, none of them one by one into the dict
        else:
            self.recent.update(zip(keys[new].tolist(), slots[new].tolist(), strict=True))

    def _slots(self, keys: Ints) -> Ints:
        """Each key's slot, -1 for a pair not met before."""
        if self.indexed + len(self.recent) < self.pairs:  # pairs taken as they were, not yet indexed
            self.reindex()
        slots = np.full(len(keys), -1, np.int64)
        if self.indexed:
            found = np.minimum(np.searchsorted(self.sorted_keys, keys), self.indexed - 1)
            hit = self.sorted_keys[found] == keys
            slots[hit] = self.sorted_slots[found[hit]]
        if self.recent:
            for n in np.flatnonzero(slots < 0).tolist():
                slots[n] = self.recent.get(int(keys[n]), -1)
        return slots

    def reindex(self) -> None:
        """Every pair's key sorted, to be found by a search (done again once an eighth more were added)."""
        keys = self.a[:self.pairs] * PAIR_KEY + self.b[:self.pairs]
        order = np.argsort(keys)
        self.sorted_keys, self.sorted_slots = keys[order], order
        self.indexed, self.recent = self.pairs, {}

    def take_fresh(self) -> Pairs:
        """The terms added since the last call (a, b, weight, a's score; a new pair's virtual draw
        included), as arrays, and forget them; from here on they are kept."""
        parts, self.fresh = self.fresh or [], []
        if not parts:
            return np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0), np.zeros(0)
        a, b, weight, score = (np.concatenate(column) for column in zip(*parts, strict=True))
        return a, b, weight, score

    def by_name(self) -> dict[tuple[str, str], tuple[float, float]]:
        """The totals as PairTotal has them: (a, b) with a < b by name -> (weight, a's score)."""
        out = {}
        for k in range(self.pairs):
            a, b = self.names[self.a[k]], self.names[self.b[k]]
            weight, score = float(self.weight[k]) - PRIOR_DRAWS, float(self.score[k]) - PRIOR_DRAWS / 2
            out[(a, b) if a < b else (b, a)] = (weight, score if a < b else weight - score)
        return out

    def _grow(self, needed: int) -> None:
        """Room for `needed` pairs: the arrays at least doubled when they grow (the room beyond the
        pairs is left untouched, so it costs no memory until used)."""
        if needed <= len(self.a):
            return
        size = max(2 * len(self.a), needed)
        for name in ("a", "b", "weight", "score"):
            old = getattr(self, name)
            grown = np.empty(size, old.dtype)
            grown[:self.pairs] = old[:self.pairs]
            setattr(self, name, grown)

    def groups(self) -> Ints:
        """Each bot's connected group, found again only when it may have changed: new pairs only join
        groups, so once one group holds every bot it stays so until a new bot comes."""
        n, known = len(self.names), self._groups
        whole = known is not None and len(known) == n and not known.any()
        if known is None or not whole and (len(known) != n or self._groups_pairs != self.pairs):
            a, b, _, _ = self.arrays()
            known = self._groups = components(a, b, n)
            self._groups_pairs = self.pairs
        return known

    def arrays(self) -> Pairs:
        """(a, b, games, a's score) per pair that met, the virtual draw included (views: they change
        as results are added)."""
        n = self.pairs
        return self.a[:n], self.b[:n], self.weight[:n], self.score[:n]


def blocks(pairs: Pairs) -> Iterator[Pairs]:
    """The pairs BLOCK at a time (views): a kernel's temporaries stay a few MB, in memory it touched
    already, instead of arrays of the pairs' size made new for every operation."""
    a, b, games, score = pairs
    for start in range(0, len(a), BLOCK):
        end = start + BLOCK
        yield a[start:end], b[start:end], games[start:end], score[start:end]


def components(a: Ints, b: Ints, n: int) -> Ints:
    """Each bot's group: the bots connected to it by games, directly or through others. The pairs
    are taken a block at a time, each joining the groups found so far (a graph of groups, small),
    and once one group holds every bot the rest cannot change it."""
    labels = np.arange(n)
    groups = n
    for start in range(0, len(a), BLOCK):
        if groups == 1:
            break
        ends = (labels[a[start:start + BLOCK]], labels[b[start:start + BLOCK]])
        graph = csr_matrix((np.ones(len(ends[0]), np.int8), ends), shape=(groups, groups))
        groups, joined = connected_components(graph, directed=False)
        labels = joined[labels]
    return np.asarray(labels, dtype=np.int64)
