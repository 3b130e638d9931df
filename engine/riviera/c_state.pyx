# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Riviera's State in C: the compiled engine's, when scripts/build_engine.py built this module.

The Python sources (state.py, flow.py, queries.py, contract.py) are the reference; this is the
same rules over one C struct of fixed arrays and card masks (a hand, the discard pile, the deck and
what a seat knows are 64-bit masks of the 60 card ids), so that a dealt card or a die (most nodes of
a game) costs a struct copy and a bit set instead of a clone of 38 Python fields and new tuples.
tests/engine/riviera/test_c_state.py plays it against the reference node by node, every option;
every other Riviera test runs on it when the compiled engine does.

In C: what a playout asks (`kind`, `acting_players`, `legal_actions`, `apply`, `apply_chance`, the
chance draw `_sample_chance`, `returns`) and the observation, which a match builds at every
decision. Everything else (labels, visibility, `chance_outcomes`, `ranks`, `resample`, the fields
by name) is the reference state's:
`reference()` builds it once per state and `__getattr__` hands it what this class does not define.
An argument the fast path does not take (an illegal action, a bad seat, a mapping that is not a
dict) goes to the reference too, which raises its own error or answers; so errors read exactly as
the reference's. The turn's public log (`events`) is the one Python tuple a step extends, as the
reference's is.
"""

from engine.core import NodeKind
from engine.riviera.components import COLOURS, DIE_NAMES
from engine.riviera.contract import RivieraState
from engine.riviera.observe import _event as event_json
from engine.riviera.phases import PHASE_NAMES, STATUS_NAMES
from engine.riviera.state import KIND_BY_PHASE, FIELDS, RivieraData

ctypedef unsigned long long u64

cdef extern from *:
    int popcount "__builtin_popcountll"(unsigned long long)
    int lowest_bit "__builtin_ctzll"(unsigned long long)

# sizes (components.py), phases and statuses (phases.py), action ids (actions.py)
cdef enum:
    MAX_SEATS = 6
    NUM_COLOURS = 5
    VALUES = 12
    HAND_SIZE = 10
    GOLD = 5
    MAX_PICKS = 2  # a card 10 gives, takes or throws away at most 2 cards (queries.swap_size)
    MAX_LEGAL = 64
    REMOVED_DRAW = 0
    HOLDER_DRAW = 1
    DEAL = 2
    ROLL = 3
    ADJUST_DICE = 4
    CHOOSE = 5
    BONUS = 6
    POWERS = 7
    SWAP_GIVE = 8
    SWAP_PICK = 9
    FALLBACK_DISCARD = 10
    DRAW = 11
    STOP_OR_MORE = 12
    GAME_OVER = 13
    IN = 0
    STOPPED = 1
    CRASHED = 2
    PLAY = 0
    LAST_CHANCE = 60
    CRASH = 61
    PASS = 62
    STOP = 63
    MORE = 64
    ADJUST = 65
    ACTIVATE = 77
    SWAP_WITH = 78
    GIVE = 84
    DISCARD = 144
    NUM_ACTIONS = 204

cdef u64 COLOUR_MASK = (1 << VALUES) - 1
cdef u64 ALL_CARDS = (1ULL << (NUM_COLOURS * VALUES)) - 1
cdef int STARS_BY_VALUE[12]  # components.STARS_BY_VALUE
STARS_BY_VALUE[:] = [2, 2, 2, 1, 1, 1, 1, 2, 2, 2, 3, 5]

KINDS = tuple(KIND_BY_PHASE)
CHANCE = NodeKind.CHANCE
DECISION = NodeKind.DECISION

# The running sums engine.core.uniform_sums(n) holds (contract.py's die table is uniform_sums(6)'s
# additions too): the same float additions in the same order, so that a seeded draw picks what
# engine.core.sample_chance picks from the reference.
cdef double UNIFORM_SUMS[61][60]
cdef int _n, _i
cdef double _total
for _n in range(1, 61):
    _total = 0.0
    for _i in range(_n):
        _total += 1.0 / _n
        UNIFORM_SUMS[_n][_i] = _total


cdef struct Data:
    # the rules (state.Rules)
    int n, sequential, reroll, max_rerolls, require_in, rule_removed, rule_start, max_same
    int winning_score, max_rounds
    # the fields of state.py, in its order; tuples of cards in play order are arrays with a count
    int phase, removed, holder, round_no, turn_no
    u64 in_use
    int scores[MAX_SEATS]
    int lc_used[MAX_SEATS]
    u64 hands[MAX_SEATS]
    int columns[MAX_SEATS][HAND_SIZE]
    int ncolumn[MAX_SEATS]
    int status[MAX_SEATS]
    u64 discard
    int dice[6]
    int gold_on
    int reserved[NUM_COLOURS]
    int modified, rerolls
    int adjusters[MAX_SEATS]
    int nadjusters
    int played[MAX_SEATS][HAND_SIZE]
    int nplayed[MAX_SEATS]
    int eligible
    int queue[MAX_SEATS]
    int nqueue
    int pend_gold
    int pend_res[NUM_COLOURS]
    int pend_adj, target
    int picked[MAX_PICKS]
    int npicked
    int taken[MAX_PICKS]
    int ntaken
    int draws_left
    u64 known[MAX_SEATS * MAX_SEATS]
    u64 known_disc[MAX_SEATS]
    int winners, slam
    u64 deck


cdef inline u64 bit(int i):
    return (<u64>1) << i


cdef tuple card_tuple(u64 mask):
    """A card mask as the reference's sorted tuple (components.bits)."""
    out = []
    while mask:
        out.append(lowest_bit(mask))
        mask &= mask - 1
    return tuple(out)


cdef u64 mask_of(object cards) except? 0:
    cdef u64 mask = 0
    for card in cards:
        mask |= bit(card)
    return mask


cdef list seat_list(u64 mask):
    """components.bits of a seat or die mask."""
    return list(card_tuple(mask))


cdef tuple ints(const int* values, int n):
    return tuple([values[i] for i in range(n)])


cdef tuple masks(const u64* values, int n):
    return tuple([values[i] for i in range(n)])


cdef int set_ints(int* target, object values, int capacity) except -1:
    """Copy a tuple into a C array; the count. Longer than the rules allow: an error, not an overrun."""
    cdef int i, n = len(values)
    if n > capacity:
        raise ValueError(f"riviera C state: {n} values where the rules allow {capacity}")
    for i in range(n):
        target[i] = values[i]
    return n


cdef int stars(const int* cards, int n):
    cdef int i, total = 0
    for i in range(n):
        total += STARS_BY_VALUE[cards[i] % VALUES]
    return total


def rebuild(rules, key):
    """A state from its rules and `key()` (pickle's way back)."""
    cdef RivieraCState s = RivieraCState.__new__(RivieraCState)
    s.configure(rules)
    s.set_key(key)
    return s


def state_of(reference):
    """The C state of the position a reference state (RivieraState) holds."""
    values = reference._values()
    return rebuild(values[1], values[2:])


cdef class RivieraCState:
    """One position of a game of Riviera; a value: a transition returns a new state."""

    cdef Data d
    cdef readonly object kind
    cdef readonly int num_players
    cdef readonly object rules
    cdef tuple events
    cdef object ref  # reference(), once asked

    @staticmethod
    def initial(rules):
        """RivieraState(rules): a new game, dealt up to its first chance node (flow.start_game)."""
        cdef RivieraCState s = RivieraCState.__new__(RivieraCState)
        cdef int p
        s.configure(rules)
        s.d.removed, s.d.holder, s.d.target = -1, -1, -1
        s.events = ()
        if s.d.rule_removed == -2:
            s.d.in_use = ALL_CARDS
            s.after_colours()
        elif s.d.rule_removed >= 0:
            s.remove_colour(s.d.rule_removed)
            s.after_colours()
        else:
            s.d.phase = REMOVED_DRAW
        s.kind = KINDS[s.d.phase]
        return s

    @staticmethod
    def from_reference(reference):
        """The C state of the position a reference state (RivieraState) holds."""
        return state_of(reference)

    cdef void configure(self, rules):
        self.rules = rules
        self.num_players = self.d.n = rules.num_players
        self.d.sequential = rules.sequential
        self.d.reroll = rules.reroll
        self.d.max_rerolls = rules.max_rerolls
        self.d.require_in = rules.require_in
        self.d.rule_removed = rules.removed
        self.d.rule_start = rules.start
        self.d.max_same = rules.max_same
        self.d.winning_score = rules.winning_score
        self.d.max_rounds = rules.max_rounds

    cdef RivieraCState copy(self):
        cdef RivieraCState s = RivieraCState.__new__(RivieraCState)
        s.d = self.d
        s.num_players = self.num_players
        s.rules = self.rules
        s.events = self.events
        return s

    # -- the reference, for everything not written here ---------------------------------------

    def reference(self):
        """This position as the reference's RivieraState (built once)."""
        if self.ref is None:
            ref = RivieraState()
            for name, value in zip(FIELDS, (self.d.n, self.rules) + self.key()):
                setattr(ref, name, value)
            ref.settle_kind()
            self.ref = ref
        return self.ref

    def __getattr__(self, name):
        return getattr(self.reference(), name)

    def key(self):
        """The reference's `_values()` without num_players and rules: every other field, as the
        reference holds it (colours and in_deck follow from in_use, as flow.py sets them)."""
        cdef int n = self.d.n, p
        colours = self.colours()
        return (
            self.d.phase, self.d.removed, self.d.in_use, self.d.holder, ints(self.d.scores, n),
            tuple([bool(self.d.lc_used[p]) for p in range(n)]), self.d.round_no, self.d.turn_no,
            tuple([card_tuple(self.d.hands[p]) for p in range(n)]),
            tuple([ints(self.d.columns[p], self.d.ncolumn[p]) for p in range(n)]),
            ints(self.d.status, n), self.d.discard, ints(self.d.dice, 6), bool(self.d.gold_on),
            ints(self.d.reserved, NUM_COLOURS), self.d.modified, self.d.rerolls,
            ints(self.d.adjusters, self.d.nadjusters),
            tuple([ints(self.d.played[p], self.d.nplayed[p]) for p in range(n)]),
            self.d.eligible, ints(self.d.queue, self.d.nqueue), self.d.pend_gold,
            ints(self.d.pend_res, NUM_COLOURS), self.d.pend_adj, self.d.target,
            ints(self.d.picked, self.d.npicked), ints(self.d.taken, self.d.ntaken),
            self.d.draws_left, masks(self.d.known, n * n), masks(self.d.known_disc, n),
            self.events, self.d.winners, bool(self.d.slam), colours,
            card_tuple(self.d.in_use), card_tuple(self.d.deck),
        )

    cdef tuple colours(self):
        """queries.colours_in_use."""
        return tuple([c for c in range(NUM_COLOURS) if self.d.in_use >> (c * VALUES) & 1])

    cdef int set_key(self, tuple key) except -1:
        cdef int p, n = self.d.n
        (self.d.phase, self.d.removed, self.d.in_use, self.d.holder, scores, lc_used,
         self.d.round_no, self.d.turn_no, hands, columns, status, self.d.discard, dice,
         self.d.gold_on, reserved, self.d.modified, self.d.rerolls, adjusters, played,
         self.d.eligible, queue, self.d.pend_gold, pend_res, self.d.pend_adj, self.d.target,
         picked, taken, self.d.draws_left, known, known_disc, self.events, self.d.winners,
         self.d.slam, _, _, deck) = key
        set_ints(self.d.scores, scores, n)
        set_ints(self.d.lc_used, tuple([int(used) for used in lc_used]), n)
        set_ints(self.d.status, status, n)
        set_ints(self.d.dice, dice, 6)
        set_ints(self.d.reserved, reserved, NUM_COLOURS)
        set_ints(self.d.pend_res, pend_res, NUM_COLOURS)
        self.d.nadjusters = set_ints(self.d.adjusters, adjusters, MAX_SEATS)
        self.d.nqueue = set_ints(self.d.queue, queue, MAX_SEATS)
        self.d.npicked = set_ints(self.d.picked, picked, MAX_PICKS)
        self.d.ntaken = set_ints(self.d.taken, taken, MAX_PICKS)
        for p in range(n):
            self.d.hands[p] = mask_of(hands[p])
            self.d.ncolumn[p] = set_ints(self.d.columns[p], columns[p], HAND_SIZE)
            self.d.nplayed[p] = set_ints(self.d.played[p], played[p], HAND_SIZE)
            self.d.known_disc[p] = known_disc[p]
        for p in range(n * n):
            self.d.known[p] = known[p]
        self.d.deck = mask_of(deck)
        self.kind = KINDS[self.d.phase]
        return 0

    def __eq__(self, other):
        if isinstance(other, RivieraCState):
            return self.rules == other.rules and self.key() == other.key()
        if isinstance(other, RivieraData):
            return self.reference() == other
        return NotImplemented

    # No __hash__: the reference has none (its dataclass defines equality only), and with __eq__
    # defined Cython leaves the class unhashable, so both engines agree.

    def __reduce__(self):
        return rebuild, (self.rules, self.key())

    def __repr__(self):
        return repr(self.reference())

    # -- what a playout asks -----------------------------------------------------------------

    cdef int acting(self, int* seats):
        """contract._acting_players into `seats`, ascending where several act; the count."""
        cdef int p, count = 0
        if self.d.phase == ADJUST_DICE:
            seats[0] = self.d.adjusters[0]
            return 1 if self.d.nadjusters else 0
        if self.d.phase == BONUS:
            for p in range(self.d.n):
                if self.d.eligible >> p & 1:
                    seats[count] = p
                    count += 1
            return count
        if (self.d.phase == CHOOSE or self.d.phase == STOP_OR_MORE) and not self.d.sequential:
            for p in range(self.d.n):
                if self.d.status[p] == IN:
                    seats[count] = p
                    count += 1
            return count
        seats[0] = self.d.queue[0]
        return 1 if self.d.nqueue else 0

    def acting_players(self):
        cdef int seats[MAX_SEATS]
        if self.kind is not DECISION:
            return ()
        return ints(seats, self.acting(seats))

    cdef bint is_acting(self, int seat):
        cdef int seats[MAX_SEATS]
        cdef int i
        for i in range(self.acting(seats)):
            if seats[i] == seat:
                return True
        return False

    def legal_actions(self, seat):
        cdef int legal[MAX_LEGAL]
        if not (type(seat) is int and 0 <= seat < self.d.n):
            return self.reference().legal_actions(seat)  # its error
        if self.kind is not DECISION or not self.is_acting(seat):
            return []
        return list(ints(legal, self.legal(seat, legal)))

    cdef int legal(self, int seat, int* out):
        """queries.legal_actions of acting `seat` into `out` (sorted); the count."""
        cdef int phase = self.d.phase, count = 0, d
        cdef u64 cards
        if phase == CHOOSE or phase == BONUS:
            count = self.card_actions(PLAY, self.d.hands[seat] & self.playable(seat), out)
            if phase == BONUS:
                out[count] = PASS
                return count + 1
            if count == 0:
                if not self.d.lc_used[seat]:
                    out[count] = LAST_CHANCE
                    count += 1
                out[count] = CRASH
                count += 1
            return count
        if phase == STOP_OR_MORE:
            out[0], out[1] = STOP, MORE
            return 2
        if phase == ADJUST_DICE:
            out[0] = PASS
            count = 1
            for d in range(GOLD + 1):
                if self.rolled(d) and not self.d.modified >> d & 1:
                    out[count], out[count + 1] = ADJUST + 2 * d, ADJUST + 2 * d + 1
                    count += 2
            return count
        if phase == POWERS:
            return self.power_actions(seat, out)
        cards = self.d.hands[seat] & ~self.picked_mask()
        return self.card_actions(GIVE if phase == SWAP_GIVE else DISCARD, cards, out)

    cdef int card_actions(self, int base, u64 cards, int* out):
        cdef int count = 0
        while cards:
            out[count] = base + lowest_bit(cards)
            count += 1
            cards &= cards - 1
        return count

    cdef int power_actions(self, int seat, int* out):
        """queries._power_actions: pass or switch on a 2 or 11; a 10 swaps, or throws away."""
        cdef int card = self.power_card(seat), q, count = 1
        out[0] = PASS
        if card % VALUES != 9:
            out[1] = ACTIVATE
            return 2
        for q in range(self.d.n):
            if q != seat and self.d.status[q] == IN:
                out[count] = SWAP_WITH + q
                count += 1
        if count > 1:
            return count
        return 1 + self.card_actions(DISCARD, self.d.hands[seat], out + 1)

    cdef bint rolled(self, int die):
        """Whether `die` is in this turn's roll (queries.rolled_dice)."""
        if die == GOLD:
            return self.d.gold_on
        return self.d.in_use >> (die * VALUES) & 1

    cdef u64 playable(self, int p):
        """queries._playable_mask for p: a die of the card's colour, alone or with one partner;
        a die reserved by another seat is neither, the golden die only a partner."""
        cdef int avail[NUM_COLOURS]
        cdef int partners[NUM_COLOURS + 1]
        cdef int navail = 0, npartners, c, i, j
        cdef int value, base
        cdef u64 ok = 0
        for c in range(NUM_COLOURS):
            if self.rolled(c) and (not self.d.reserved[c] or self.d.reserved[c] >> p & 1):
                avail[navail] = c
                partners[navail] = self.d.dice[c]
                navail += 1
        npartners = navail
        if self.d.gold_on:
            partners[npartners] = self.d.dice[GOLD]
            npartners += 1
        for i in range(navail):
            value = self.d.dice[avail[i]]
            base = avail[i] * VALUES - 1
            ok |= bit(base + value)
            for j in range(npartners):
                if j != i:
                    ok |= bit(base + value + partners[j])
        return ok

    cdef u64 picked_mask(self):
        cdef int i
        cdef u64 mask = 0
        for i in range(self.d.npicked):
            mask |= bit(self.d.picked[i])
        return mask

    def apply(self, actions):
        cdef int seats[MAX_SEATS]
        cdef int chosen[MAX_SEATS]
        cdef int legal[MAX_LEGAL]
        cdef int count, nlegal, i, k
        cdef bint found
        if self.kind is not DECISION or type(actions) is not dict:
            return self.by_reference_apply(actions)
        count = self.acting(seats)
        if len(actions) != count:
            return self.by_reference_apply(actions)
        for i in range(count):
            value = actions.get(seats[i])
            if type(value) is not int or not 0 <= value < NUM_ACTIONS:
                return self.by_reference_apply(actions)
            chosen[i] = value
            nlegal = self.legal(seats[i], legal)
            found = False
            for k in range(nlegal):
                found = found or legal[k] == chosen[i]
            if not found:
                return self.by_reference_apply(actions)
        cdef RivieraCState s = self.copy()
        s.apply_actions(seats, chosen, count)
        s.kind = KINDS[s.d.phase]
        return s

    def by_reference_apply(self, actions):
        """What the reference's `apply` says: its error, or (a mapping that is not a dict, a bool
        for an int) its next state, as a C state."""
        return state_of(self.reference().apply(actions))

    cdef int chance_options(self, int* out):
        """flow.chance_options into `out` (ascending); the count."""
        cdef int phase = self.d.phase, i
        if phase == DEAL:
            return self.card_actions(0, self.d.deck, out)
        if phase == SWAP_PICK:
            return self.card_actions(0, self.d.hands[self.d.target] & ~self.taken_mask(), out)
        if phase == DRAW:
            return self.card_actions(0, self.draw_pile(), out)
        cdef int first = 1 if phase == ROLL else 0
        cdef int count = 6 if phase == ROLL else NUM_COLOURS if phase == REMOVED_DRAW else self.d.n
        for i in range(count):
            out[i] = first + i
        return count

    cdef u64 taken_mask(self):
        cdef int i
        cdef u64 mask = 0
        for i in range(self.d.ntaken):
            mask |= bit(self.d.taken[i])
        return mask

    cdef u64 draw_pile(self):
        """queries.draw_pile: every card in use in no hand, column or discard pile."""
        cdef u64 placed = self.d.discard
        cdef int p, i
        for p in range(self.d.n):
            placed |= self.d.hands[p]
            for i in range(self.d.ncolumn[p]):
                placed |= bit(self.d.columns[p][i])
        return self.d.in_use & ~placed

    def _sample_chance(self, rng):
        """engine.core.sample_chance's draw: one rng.random() against the running sums."""
        cdef int options[MAX_LEGAL]
        cdef int count, lo, hi, mid
        if self.kind is not CHANCE:
            self.reference()._require(CHANCE, "chance_outcomes")
        cdef double x = rng.random()
        count = self.chance_options(options)
        cdef const double* sums = UNIFORM_SUMS[count]
        x *= sums[count - 1]
        lo, hi = 0, count - 1  # bisect_right(sums, x, 0, count - 1)
        while lo < hi:
            mid = (lo + hi) // 2
            if x < sums[mid]:
                hi = mid
            else:
                lo = mid + 1
        return options[lo]

    def apply_chance(self, outcome):
        cdef int options[MAX_LEGAL]
        cdef int count, i
        cdef bint found = False
        if self.kind is not CHANCE or type(outcome) is not int or not 0 <= outcome < 64:
            return state_of(self.reference().apply_chance(outcome))
        count = self.chance_options(options)
        for i in range(count):
            found = found or options[i] == outcome
        if not found:
            return state_of(self.reference().apply_chance(outcome))
        cdef RivieraCState s = self.copy()
        s.chance(outcome)
        s.kind = KINDS[s.d.phase]
        return s

    def returns(self):
        """queries.returns: stars; a Grand Slam winner gets max(100, best other + 1) (§5.4)."""
        cdef int p
        if self.d.phase != GAME_OVER:
            return self.reference().returns()  # its error
        scores = [float(self.d.scores[p]) for p in range(self.d.n)]
        if not (self.d.winners and self.d.slam):
            return scores
        others = [x for p, x in enumerate(scores) if not self.d.winners >> p & 1]
        top = max(100.0, max(others, default=0.0) + 1)
        return [top if self.d.winners >> p & 1 else x for p, x in enumerate(scores)]

    def resample(self, known_to, rng):
        return state_of(self.reference().resample(known_to, rng))

    # -- the observation (observe.py), at every decision of a match ---------------------------

    def observation(self, seat):
        if not (type(seat) is int and 0 <= seat < self.d.n):
            return self.reference().observation(seat)  # its error
        cdef int n = self.d.n, p, c, phase = self.d.phase
        # Before the deal nobody holds a card and no pile is formed; during it nobody knows what
        # another seat holds (observe.observation).
        cdef bint setup = phase == REMOVED_DRAW or phase == HOLDER_DRAW
        cdef bint dealing = setup or phase == DEAL
        colours = self.colours()
        names = [COLOURS[c] for c in colours]
        return {
            "seat": seat,
            "phase": PHASE_NAMES[phase],
            "num_players": n,
            "mode": "sequential" if self.d.sequential else "simultaneous",
            "winning_score": self.d.winning_score,
            "colours": names,
            "removed_colour": COLOURS[self.d.removed] if self.d.removed >= 0 else None,
            "round": self.d.round_no,
            "turn": self.d.turn_no,
            "holder": self.d.holder if self.d.holder >= 0 else None,
            "scores": [self.d.scores[p] for p in range(n)],
            "status": [STATUS_NAMES[self.d.status[p]] for p in range(n)],
            "last_chance_used": [bool(self.d.lc_used[p]) for p in range(n)],
            "hand": [] if setup else list(card_tuple(self.d.hands[seat])),
            "hand_sizes": [0 if setup else popcount(self.d.hands[p]) for p in range(n)],
            "columns": [list(ints(self.d.columns[p], self.d.ncolumn[p])) for p in range(n)],
            "column_stars": [stars(self.d.columns[p], self.d.ncolumn[p]) for p in range(n)],
            "played_this_turn": [list(ints(self.d.played[p], self.d.nplayed[p])) for p in range(n)],
            # observe._dice: values once the roll stands; an unfinished roll (maybe redone) is hidden
            "dice": {COLOURS[c]: self.d.dice[c] if phase != ROLL and self.d.dice[c] else None
                     for c in colours},
            "gold_in_roll": bool(self.d.gold_on),
            "gold": self.d.dice[GOLD] if phase != ROLL and self.d.gold_on and self.d.dice[GOLD] else None,
            "reserved_by": {COLOURS[c]: seat_list(self.d.reserved[c]) for c in colours},
            "modified_dice": [DIE_NAMES[c] for c in seat_list(self.d.modified)],
            "pending": {
                "gold": seat_list(self.d.pend_gold),
                "reservations": {COLOURS[c]: seat_list(self.d.pend_res[c]) for c in colours},
                "adjusters": seat_list(self.d.pend_adj),
            },
            "adjust_queue": list(ints(self.d.adjusters, self.d.nadjusters)),
            "bonus_eligible": seat_list(self.d.eligible),
            "acting": list(self.acting_players()),
            "queue": list(ints(self.d.queue, self.d.nqueue)),
            "power": self.power_json(seat),
            "draw_pile_size": 0 if setup else self.draw_pile_size(),
            "discard_size": popcount(self.d.discard),
            "known_hands": [[] if dealing else list(card_tuple(self.d.known[seat * n + p]))
                            for p in range(n)],
            "known_discards": list(card_tuple(self.d.known_disc[seat])),
            "events": [event_json(e, seat) for e in self.events],
            "winners": seat_list(self.d.winners),
            "grand_slam": bool(self.d.slam),
        }

    cdef int draw_pile_size(self):
        """queries.draw_pile_size: every card in use is in a hand, a column, the discard or the pile."""
        cdef int p, placed = popcount(self.d.discard)
        for p in range(self.d.n):
            placed += popcount(self.d.hands[p]) + self.d.ncolumn[p]
        return popcount(self.d.in_use) - placed

    cdef object power_json(self, int seat):
        """observe._power: public owner, card and target; the chosen cards only to the owner."""
        cdef int phase = self.d.phase, owner
        if not (phase == POWERS or phase == SWAP_GIVE or phase == SWAP_PICK
                or phase == FALLBACK_DISCARD or phase == DRAW):
            return None
        owner = self.d.queue[0]
        swapping = self.d.target >= 0
        return {
            "seat": owner,
            "card": self.power_card(owner),
            "target": self.d.target if swapping else None,
            "count": self.swap_size() if swapping else None,
            "selected": list(ints(self.d.picked, self.d.npicked)) if seat == owner else [],
            "draws_left": self.d.draws_left,
        }

    # -- chance (flow.py), on a fresh copy ---------------------------------------------------

    cdef void chance(self, int outcome):
        """flow.apply_chance."""
        cdef int phase = self.d.phase, p
        if phase == DEAL:
            self.deal_card(outcome)
        elif phase == ROLL:
            self.roll_die(outcome)
        elif phase == SWAP_PICK:
            self.d.taken[self.d.ntaken] = outcome
            self.d.ntaken += 1
            if self.d.ntaken == self.swap_size():
                self.execute_swap()
        elif phase == DRAW:
            p = self.d.queue[0]
            self.d.hands[p] |= bit(outcome)
            self.d.draws_left -= 1
            if not self.d.draws_left:
                self.end_power()
        elif phase == REMOVED_DRAW:
            self.remove_colour(outcome)
            self.after_colours()
        else:  # HOLDER_DRAW
            self.d.holder = outcome
            self.begin_round()

    cdef void remove_colour(self, int colour):
        self.d.removed = colour
        self.d.in_use = ALL_CARDS & ~(COLOUR_MASK << (colour * VALUES))

    cdef void after_colours(self):
        if self.d.rule_start >= 0:
            self.d.holder = self.d.rule_start
            self.begin_round()
        else:
            self.d.phase = HOLDER_DRAW

    cdef void begin_round(self):
        """Collect every card, clear the round state; the Token and Last Chance use carry over."""
        cdef int p, c
        self.d.round_no += 1
        self.d.turn_no = 0
        for p in range(self.d.n):
            self.d.hands[p] = 0
            self.d.ncolumn[p] = self.d.nplayed[p] = 0
            self.d.status[p] = IN
            self.d.known_disc[p] = 0
        for p in range(self.d.n * self.d.n):
            self.d.known[p] = 0
        self.d.discard = 0
        self.d.pend_gold = self.d.pend_adj = 0
        for c in range(NUM_COLOURS):
            self.d.pend_res[c] = self.d.reserved[c] = 0
        for c in range(6):
            self.d.dice[c] = 0
        self.d.gold_on = self.d.modified = 0
        self.d.nadjusters = self.d.nqueue = self.d.eligible = 0
        self.events = ()
        self.d.deck = self.d.in_use
        self.d.phase = DEAL

    cdef void deal_card(self, int card):
        """Seat 0 gets the first 10 cards, and so on; a full deal that gives some hand more than
        maxSameColourInHand cards of one colour is redone (§1.5 step 3)."""
        cdef int dealt, p
        self.d.deck &= ~bit(card)
        dealt = popcount(self.d.in_use) - popcount(self.d.deck)  # this card included
        self.d.hands[(dealt - 1) // HAND_SIZE] |= bit(card)
        if dealt < HAND_SIZE * self.d.n:
            return
        self.d.deck = 0
        for p in range(self.d.n):
            if not self.spread_ok(self.d.hands[p]):
                for p in range(self.d.n):
                    self.d.hands[p] = 0
                self.d.deck = self.d.in_use
                return
        self.begin_turn()

    cdef bint spread_ok(self, u64 hand):
        cdef int c
        for c in range(NUM_COLOURS):
            if popcount(hand >> (c * VALUES) & COLOUR_MASK) > self.d.max_same:
                return False
        return True

    cdef void roll_die(self, int value):
        """Set the next unrolled die; after the last one, maybe reroll (§6.2), else go on."""
        cdef int d, pending = 0, first = -1
        for d in range(GOLD + 1):
            if self.rolled(d) and not self.d.dice[d]:
                if first < 0:
                    first = d
                pending += 1
        self.d.dice[first] = value
        if pending > 1:
            return
        if self.reroll_needed():
            self.d.rerolls += 1
            for d in range(6):
                self.d.dice[d] = 0
            return
        if self.d.nadjusters:
            self.d.phase = ADJUST_DICE
        else:
            self.start_choose()

    cdef bint reroll_needed(self):
        cdef int p
        if self.d.turn_no != 1 or not self.d.reroll or self.d.rerolls >= self.d.max_rerolls:
            return False
        for p in range(self.d.n):
            if self.d.status[p] == IN and not self.d.hands[p] & self.playable(p):
                return True
        return False

    cdef int in_from_holder(self, int* seats):
        """queries.in_from_holder: the seats still IN, clockwise from the Holder; the count."""
        cdef int i, p, count = 0
        for i in range(self.d.n):
            p = (self.d.holder + i) % self.d.n
            if self.d.status[p] == IN:
                seats[count] = p
                count += 1
        return count

    # -- the turn (flow.py), on a fresh copy -------------------------------------------------

    cdef void begin_turn(self):
        """ROLL step (a): apply the pending 2/9/11 effects whose owner is IN, then clear them."""
        cdef int n = self.d.n, p, c, i, live = 0
        self.d.turn_no += 1
        for p in range(n):
            if self.d.status[p] == IN or not self.d.require_in:
                live |= 1 << p
        self.d.gold_on = (self.d.pend_gold & live) != 0
        for c in range(NUM_COLOURS):
            self.d.reserved[c] = self.d.pend_res[c] & live
            self.d.pend_res[c] = 0
        self.d.nadjusters = 0
        for i in range(n):
            p = (self.d.holder + i) % n
            if (self.d.pend_adj & live) >> p & 1:
                self.d.adjusters[self.d.nadjusters] = p
                self.d.nadjusters += 1
        self.d.pend_gold = self.d.pend_adj = 0
        for c in range(6):
            self.d.dice[c] = 0
        self.d.modified = self.d.rerolls = 0
        for p in range(n):
            self.d.nplayed[p] = 0
        self.d.eligible = self.d.nqueue = 0
        self.events = ()
        self.d.phase = ROLL

    cdef void apply_actions(self, const int* seats, const int* actions, int count):
        """flow.apply_actions: the acting seats (ascending, as sorted(actions)) and their actions."""
        cdef int phase = self.d.phase, p = seats[0], action = actions[0]
        if phase == CHOOSE:
            self.choose(seats, actions, count)
        elif phase == BONUS:
            self.bonus(seats, actions, count)
        elif phase == STOP_OR_MORE:
            self.stop_or_more(seats, actions, count)
        elif phase == ADJUST_DICE:
            self.adjust(p, action)
        elif phase == POWERS:
            self.power(p, action)
        elif phase == SWAP_GIVE:
            self.give(action - GIVE)
        else:  # FALLBACK_DISCARD
            self.pick_discard(action - DISCARD)

    cdef void adjust(self, int p, int action):
        """Card 9 (§4.3): turn one unchanged die by ±1 (wrapping 6↔1), or pass."""
        cdef int die, delta, i
        if action == PASS:
            self.log(("adjust", p, -1, 0))
        else:
            die, delta = (action - ADJUST) // 2, -1 if (action - ADJUST) % 2 else 1
            self.d.dice[die] = (self.d.dice[die] - 1 + delta + 6) % 6 + 1
            self.d.modified |= 1 << die
            self.log(("adjust", p, die, delta))
        for i in range(1, self.d.nadjusters):
            self.d.adjusters[i - 1] = self.d.adjusters[i]
        self.d.nadjusters -= 1
        if not self.d.nadjusters:
            self.start_choose()

    cdef void log(self, tuple event):
        self.events = self.events + (event,)

    cdef void start_choose(self):
        self.d.phase = CHOOSE
        if self.d.sequential:
            self.d.nqueue = self.in_from_holder(self.d.queue)

    cdef void choose(self, const int* seats, const int* actions, int count):
        """REVEAL (§2.2 phase 4): cards, Last Chance and crashes take effect together."""
        cdef int i, p, action, slam = 0, eligible = 0
        for i in range(count):
            p, action = seats[i], actions[i]
            if action == LAST_CHANCE:
                self.d.lc_used[p] = 1
                self.log(("last_chance", p))
            elif action == CRASH:
                self.crash(p)
            else:
                self.play_card(p, action - PLAY, "play")
                slam |= self.emptied(p)
                eligible |= self.revealed_one(p, action)
        if slam:
            self.grand_slam(slam)
        elif eligible:
            self.d.eligible = eligible
            self.d.phase = BONUS
        else:
            self.after_reveal()

    cdef int emptied(self, int p):
        """p's seat bit when p's hand is empty (a Grand Slam), else 0."""
        return 1 << p if self.d.hands[p] == 0 else 0

    cdef int revealed_one(self, int p, int action):
        """p's seat bit when `action` played a 1 (a bonus play follows), else 0."""
        return 1 << p if action % VALUES == 0 else 0

    cdef void after_reveal(self):
        if self.d.sequential:
            self.after_go()
        else:
            self.start_powers()

    cdef void bonus(self, const int* seats, const int* actions, int count):
        """BONUS_REVEAL (§4.1): extra cards after a 1; a further 1 keeps its owner eligible."""
        cdef int i, p, action, slam = 0, eligible = 0
        for i in range(count):
            p, action = seats[i], actions[i]
            if action == PASS:
                self.log(("bonus_pass", p))
                continue
            self.play_card(p, action - PLAY, "bonus")
            slam |= self.emptied(p)
            eligible |= self.revealed_one(p, action)
        self.d.eligible = eligible
        if slam:
            self.grand_slam(slam)
        elif not eligible:
            self.after_reveal()

    cdef void play_card(self, int p, int card, str how):
        cdef int q, n = self.d.n
        self.d.hands[p] &= ~bit(card)
        self.d.columns[p][self.d.ncolumn[p]] = card
        self.d.ncolumn[p] += 1
        self.d.played[p][self.d.nplayed[p]] = card
        self.d.nplayed[p] += 1
        for q in range(n):  # a played card is public: nobody "knows" it in p's hand any more
            self.d.known[q * n + p] &= ~bit(card)
        if card % VALUES == 8:  # a 9 queues its owner for the next ADJUST_DICE (§4.3)
            self.d.pend_adj |= 1 << p
        self.log((how, p, card))

    cdef void crash(self, int p):
        """§5.1: the hand and the column go face down to the discard pile; status CRASHED."""
        cdef int q, i, n = self.d.n
        cdef u64 column = 0, lost
        for i in range(self.d.ncolumn[p]):
            column |= bit(self.d.columns[p][i])
        lost = self.d.hands[p] | column
        self.d.discard |= lost
        for q in range(n):
            if q == p:
                self.d.known_disc[q] |= lost
            else:
                self.d.known_disc[q] |= self.d.known[q * n + p] | column
                self.d.known[q * n + p] = 0
        self.d.hands[p] = 0
        self.d.ncolumn[p] = 0
        self.d.status[p] = CRASHED
        self.log(("crash", p))

    cdef void grand_slam(self, int winners):
        """§5.4: the players who emptied their hands in this reveal win; the round is not scored."""
        self.d.winners = winners
        self.d.slam = 1
        self.d.phase = GAME_OVER

    # -- powers (flow.py §4.2, §4.4, §4.5), on a fresh copy ----------------------------------

    cdef int power_card(self, int p):
        """queries.power_card: the 2, 10 or 11 p played this turn, or -1."""
        cdef int i, value
        for i in range(self.d.nplayed[p]):
            value = self.d.played[p][i] % VALUES
            if value == 1 or value == 9 or value == 10:
                return self.d.played[p][i]
        return -1

    cdef bint power_available(self, int p):
        cdef int card = self.power_card(p), q
        if card < 0:
            return False
        if card % VALUES != 9:
            return True
        for q in range(self.d.n):
            if q != p and self.d.status[q] == IN:
                return True
        return self.fallback_size(p) > 0

    cdef int fallback_size(self, int p):
        """queries.fallback_size: min(2, hand, draw pile)."""
        return min(2, popcount(self.d.hands[p]), popcount(self.draw_pile()))

    cdef int swap_size(self):
        """queries.swap_size: min(2, own hand, target's hand)."""
        return min(2, popcount(self.d.hands[self.d.queue[0]]), popcount(self.d.hands[self.d.target]))

    cdef void pop_queue(self):
        cdef int i
        for i in range(1, self.d.nqueue):
            self.d.queue[i - 1] = self.d.queue[i]
        self.d.nqueue -= 1

    cdef void start_powers(self):
        """Simultaneous mode: the owners of 2, 10, 11 decide one at a time, clockwise from the Holder."""
        cdef int order[MAX_SEATS]
        cdef int count, i
        count = self.in_from_holder(order)
        self.d.nqueue = 0
        for i in range(count):
            if self.power_card(order[i]) >= 0:
                self.d.queue[self.d.nqueue] = order[i]
                self.d.nqueue += 1
        self.next_power()

    cdef void next_power(self):
        while self.d.nqueue and not self.power_available(self.d.queue[0]):
            self.pop_queue()
        if self.d.nqueue:
            self.d.phase = POWERS
        else:
            self.start_stop()

    cdef void after_go(self):
        """Sequential mode: the player whose go it is settles their power, then the next one plays."""
        if self.power_available(self.d.queue[0]):
            self.d.phase = POWERS
        else:
            self.next_player()

    cdef void next_player(self):
        self.pop_queue()
        if self.d.nqueue:
            self.d.phase = CHOOSE
        else:
            self.start_stop()

    cdef void end_power(self):
        self.d.target, self.d.npicked, self.d.ntaken, self.d.draws_left = -1, 0, 0, 0
        if self.d.sequential:
            self.next_player()
        else:
            self.pop_queue()
            self.next_power()

    cdef void power(self, int p, int action):
        cdef int card = self.power_card(p), colour
        if action == PASS:
            self.log(("power", p, card, False))
            self.end_power()
        elif action == ACTIVATE:
            if card % VALUES == 1:  # card 2: reserve the die of its colour for the next roll
                colour = card // VALUES
                self.d.pend_res[colour] |= 1 << p
            else:  # card 11: the golden die joins the next roll
                self.d.pend_gold |= 1 << p
            self.log(("power", p, card, True))
            self.end_power()
        elif action < GIVE:  # SWAP_WITH + target
            self.d.target = action - SWAP_WITH
            self.d.npicked = 0
            self.d.phase = SWAP_GIVE
        else:  # DISCARD + card: the first card of the fallback
            self.d.npicked = 0
            self.pick_discard(action - DISCARD)

    cdef void give(self, int card):
        self.d.picked[self.d.npicked] = card
        self.d.npicked += 1
        if self.d.npicked == self.swap_size():
            self.d.ntaken = 0
            self.d.phase = SWAP_PICK
        else:
            self.d.phase = SWAP_GIVE

    cdef void execute_swap(self):
        """Both sets move at once; the swapper and the target learn what the other now holds."""
        cdef int p = self.d.queue[0], t = self.d.target, n = self.d.n, q
        cdef u64 g = self.picked_mask(), k = self.taken_mask()
        self.d.hands[p] = (self.d.hands[p] & ~g) | k
        self.d.hands[t] = (self.d.hands[t] & ~k) | g
        for q in range(n):
            if q == p:
                self.d.known[p * n + t] = (self.d.known[p * n + t] & ~k) | g
            elif q == t:
                self.d.known[t * n + p] = (self.d.known[t * n + p] & ~g) | k
            else:  # a third party no longer knows which cards p and t hold
                self.d.known[q * n + p] = self.d.known[q * n + t] = 0
        self.log(("swap", p, t, ints(self.d.picked, self.d.npicked), ints(self.d.taken, self.d.ntaken)))
        self.end_power()

    cdef void pick_discard(self, int card):
        cdef int p = self.d.queue[0], n = self.d.n, q
        cdef u64 discards
        self.d.picked[self.d.npicked] = card
        self.d.npicked += 1
        if self.d.npicked < self.fallback_size(p):
            self.d.phase = FALLBACK_DISCARD
            return
        discards = self.picked_mask()
        self.d.hands[p] &= ~discards
        self.d.discard |= discards
        self.d.known_disc[p] |= discards
        for q in range(n):
            if q != p:
                self.d.known[q * n + p] = 0
        self.log(("fallback", p, self.d.npicked))
        self.d.draws_left = self.d.npicked
        self.d.npicked = 0
        self.d.phase = DRAW

    # -- stop or more, the Token, round end (flow.py §2.2 phases 8-11, §5) -------------------

    cdef void start_stop(self):
        cdef int order[MAX_SEATS]
        cdef int count, i
        count = self.in_from_holder(order)
        if not count:
            self.end_turn()
            return
        self.d.phase = STOP_OR_MORE
        if self.d.sequential:
            for i in range(count):
                self.d.queue[i] = order[i]
            self.d.nqueue = count

    cdef void stop_or_more(self, const int* seats, const int* actions, int count):
        cdef int i, p
        for i in range(count):
            p = seats[i]
            if actions[i] == STOP:
                self.d.status[p] = STOPPED
            self.log(("stop" if actions[i] == STOP else "more", p))
        if self.d.sequential:
            self.pop_queue()
            if self.d.nqueue:
                return
        self.end_turn()

    cdef void end_turn(self):
        """PASS_TOKEN: the Token moves on every turn, whatever the statuses (§2.2 phase 9)."""
        cdef int p
        self.d.holder = (self.d.holder + 1) % self.d.n
        for p in range(self.d.n):
            if self.d.status[p] == IN:
                self.begin_turn()
                return
        self.end_round()

    cdef void end_round(self):
        """ROUND_END: STOPPED players bank their column; the game ends at the winning score."""
        cdef int p, top = -1
        for p in range(self.d.n):
            if self.d.status[p] == STOPPED:
                self.d.scores[p] += stars(self.d.columns[p], self.d.ncolumn[p])
            if p == 0 or self.d.scores[p] > top:
                top = self.d.scores[p]
        if top >= self.d.winning_score or self.d.round_no >= self.d.max_rounds:
            self.d.winners = 0
            for p in range(self.d.n):
                if self.d.scores[p] == top:
                    self.d.winners |= 1 << p
            self.d.phase = GAME_OVER
        else:
            self.begin_round()
