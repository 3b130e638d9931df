# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Riga's State in C: the compiled engine's, when scripts/build_engine.py built this module.

The Python sources (state.py, flow.py, queries.py, scoring.py, contract.py) are the reference;
this is the same rules over one C struct of fixed arrays and card bit sets, so that a goods or
building draw (most nodes of a game) costs a struct copy and a few adds instead of a copy of 32
Python fields and new tuples. tests/engine/riga/test_c_state.py plays it against the reference
node by node, every option; every other Riga test runs on it when the compiled engine does.

In C: what a playout asks (`kind`, `acting_players`, `legal_actions`, `apply`, `apply_chance`, the
chance draw `_sample_chance`, `returns`) and the observation, which a match builds at every
decision. Everything else (labels, visibility, `chance_outcomes`, `ranks`, `resample`, the fields
by name) is the reference state's:
`reference()` builds it once per state and `__getattr__` hands it what this class does not
define. An argument the fast path does not take (an illegal action, a bad seat, a mapping that is
not a dict) goes to the reference too, which raises its own error or answers; so errors read
exactly as the reference's.

Card sets that the reference keeps as sorted tuples (bpool, hbuild, sbuild, tableau, rsupply:
every path of the reference sorts them or filters a sorted one) are 64-bit masks here, bit c for
card id c; sequences whose order matters (display, removed, bottom, choice, draws) are arrays.
"""

from engine.core import NodeKind
from engine.riga import components as t
from engine.riga.contract import RigaState
from engine.riga.phases import KIND_OF_PHASE, PHASE_NAMES, SEASON_NAMES
from engine.riga.state import FIELDS, RigaData

ctypedef unsigned long long u64

cdef extern from *:
    int popcount "__builtin_popcountll"(unsigned long long)
    int lowest_bit "__builtin_ctzll"(unsigned long long)

# phases and seasons (phases.py), action ids (actions.py), sizes and constants (components.py)
cdef enum:
    START = 0
    FLIP = 1
    DRAW_TILE = 2
    SETUP_GOODS = 3
    SETUP_BUILDINGS = 4
    KEEP = 5
    SPRING_ROWS = 6
    SPRING_DISPLAY = 7
    TAKE = 8
    EXTRA = 9
    BUILD = 10
    DISCARD = 11
    OVER = 12
    SETUP = 0
    SPRING = 1
    SUMMER = 2
    AUTUMN = 3
    WINTER = 4
    GAME_OVER = 5
    KEEP_START = 0
    TAKE_ROW = 2
    TAKE_BUILDING = 8
    TAKE_NOTHING = 56
    START_BUILD = 57
    PAY_GOOD = 109
    END_TURN = 117
    DISCARD_GOOD = 118
    DISCARD_BUILDING = 122
    MAX_SEATS = 4
    MAX_ROWS = 6
    ROW_CAP = 8  # a row takes goods while worth < 9, so at most 5 (grain is worth 2)
    DISPLAY_CAP = 8  # players + 1 new buildings per spring
    NUM_CARDS = 52
    NUM_CITY_CARDS = 48
    NUM_TILES = 8
    NUM_ITEMS = 8
    RIGA_CITY = 4
    T_RIGA = 0
    T_MONEY = 5
    SIDE_MAX = 0
    SIDE_FIRST = 1
    SIDE_P23 = 2
    SIDE_P4 = 3
    TILES_IN_PLAY = 4
    MIN_ROW_VALUE = 9
    START_GOODS_VALUE = 6
    START_BUILDING_CHOICES = 2
    HAND_LIMIT_BASE = 8
    MAX_BUILDS_PER_TURN = 3
    LOG_KEEP = 24
    NO_WALK_LOW = 1000000000
    NUM_ACTIONS = 170
    KNIGHT = 1  # symbols
    MERCHANT = 2

# Per card id (components.CARDS): what the rules arithmetic reads (scoring.py's tables).
cdef int CARD_CITY[52]
cdef int CARD_COST[52]
cdef int CARD_VP[52]
cdef int CARD_SYMBOL[52]
cdef int CARD_DISCOUNT[52]
cdef int CARD_FACTOR_GOOD[52]  # -1: not a Factor
cdef bint CARD_EXCHANGE[52]
cdef int CARD_EXTRA_DRAW[52]
cdef int CARD_HAND_LIMIT[52]
cdef int CARD_CREDIT_INDEX[52]  # -1: not a credit card (a Strongbox)
cdef int CREDIT_CARD[4]
cdef int CREDIT_VALUE[4]
cdef int CITY_VALUE[5][4]
cdef int BASE_VALUE[4]
for _c, _card in enumerate(t.CARDS):
    CARD_CITY[_c], CARD_COST[_c], CARD_VP[_c], CARD_SYMBOL[_c] = _card.city, _card.cost, _card.vp, _card.symbol
    CARD_DISCOUNT[_c] = _card.arg if _card.benefit == t.DISCOUNT else 0
    CARD_FACTOR_GOOD[_c] = _card.arg if _card.benefit == t.FACTOR else -1
    CARD_EXCHANGE[_c] = _card.benefit == t.EXCHANGE
    CARD_EXTRA_DRAW[_c] = _card.arg if _card.benefit == t.EXTRA_DRAW else 0
    CARD_HAND_LIMIT[_c] = _card.arg if _card.benefit == t.HAND_LIMIT else 0
    CARD_CREDIT_INDEX[_c] = t.CREDIT_INDEX.get(_c, -1)
for _i, _c in enumerate(t.CREDIT_CARDS):
    CREDIT_CARD[_i], CREDIT_VALUE[_i] = _c, t.CARDS[_c].arg
for _city in range(5):
    for _g in range(4):
        CITY_VALUE[_city][_g] = t.CITY_VALUE[_city][_g]
for _g in range(4):
    BASE_VALUE[_g] = t.BASE_VALUE[_g]

# Per tile id (scoring.py): whether it counts a city's buildings or a symbol's, which one, and
# its thresholds on the "first" and the "max" side; MONEY counts nothing.
cdef bint TILE_BY_CITY[8]
cdef int TILE_WHICH[8]
cdef int TILE_FIRST_AT[8]
cdef int TILE_MAX_AT[8]
for _tile in range(NUM_TILES):
    _kind, _which = t.TILE_METRIC.get(_tile, ("", -1))
    TILE_BY_CITY[_tile], TILE_WHICH[_tile] = _kind == "city", _which
    TILE_FIRST_AT[_tile] = t.FIRST_THRESHOLD.get(_tile, 0)
    TILE_MAX_AT[_tile] = t.MAX_THRESHOLD.get(_tile, 0)
cdef int TILE_ORDER[8]  # flow.lay_out_tiles: the check order, then MONEY
for _i, _tile in enumerate(t.TILE_CHECK_ORDER + (t.T_MONEY,)):
    TILE_ORDER[_i] = _tile

GOOD_NAMES = tuple(t.GOOD_NAMES)
CARD_CODES = tuple(t.CARD_CODES)
TILE_NAMES = tuple(t.TILE_NAMES)
SIDE_NAMES = tuple(t.SIDE_NAMES)
CITY_NAMES = tuple(t.CITY_NAMES)
PHASES = tuple(PHASE_NAMES)
SEASONS = tuple(SEASON_NAMES)
KINDS = tuple(KIND_OF_PHASE)
CHANCE = NodeKind.CHANCE
DECISION = NodeKind.DECISION

# The running sums engine.core.uniform_sums(n) holds (1.0 / n added n times), so that a seeded
# draw picks what engine.core.sample_chance picks from the reference.
cdef double UNIFORM_SUMS[49][48]
cdef double _total
for _n in range(1, NUM_CITY_CARDS + 1):
    _total = 0.0
    for _i in range(_n):
        _total += 1.0 / _n
        UNIFORM_SUMS[_n][_i] = _total


cdef struct Data:
    int n, use_riga, use_gm, years
    int phase, season, year, start, builds, need
    int nqueue, nrows, nbottom, ndnew, ndold, nremoved, ntiles, nflipped, ndrawn, nchoice
    int has_pending, pending_card
    int queue[MAX_SEATS]
    int gdeck[4]
    int gdisc[4]
    int rowlen[MAX_ROWS]
    int rows[MAX_ROWS][ROW_CAP]
    u64 bpool
    int bottom_card[MAX_SEATS]  # bbottom: (card, seat of who put it there), in order
    int bottom_seat[MAX_SEATS]
    int dnew[DISPLAY_CAP]
    int dold[DISPLAY_CAP]
    int removed[NUM_CITY_CARDS]
    int hgoods[MAX_SEATS][4]
    int kgoods[MAX_SEATS][4]
    u64 hbuild[MAX_SEATS]
    u64 sbuild[MAX_SEATS]
    u64 tableau[MAX_SEATS]
    u64 rsupply[MAX_SEATS]
    int used[MAX_SEATS]
    int tiles[TILES_IN_PLAY][3]  # (tile, side, holder), holder -1 for the supply
    int flipped[NUM_TILES]
    int drawn[NUM_TILES]
    int paid[NUM_ITEMS]
    int choice[START_BUILDING_CHOICES]


# -- tuples of the key ---------------------------------------------------------------------------

cdef tuple ints(const int* values, int n):
    return tuple([values[i] for i in range(n)])


cdef tuple cards_of(u64 mask):
    """A card set as the reference's sorted tuple of card ids."""
    cards = []
    while mask:
        cards.append(lowest_bit(mask))
        mask &= mask - 1
    return tuple(cards)


cdef u64 mask_of(cards) except? 0:
    """A sorted tuple of card ids as a card set (a tuple out of order would not come back)."""
    cdef u64 mask = 0
    cdef int last = -1
    for c in cards:
        if c <= last:
            raise ValueError(f"riga C state: card ids not in increasing order: {cards!r}")
        mask |= (<u64>1) << <int>c
        last = c
    return mask


cdef int set_ints(int* target, values, int capacity) except -1:
    """`values` into `target`; their number. More than `capacity` (a position the rules never
    reach) is an error, not a write past the array."""
    cdef int i = 0
    if len(values) > capacity:
        raise ValueError(f"riga C state: {values!r} holds more than {capacity} items")
    for value in values:
        target[i] = value
        i += 1
    return i


def rebuild(key):
    """A state from its `key()` (pickle's way back)."""
    cdef RigaCState s = RigaCState.__new__(RigaCState)
    s.set_key(key)
    return s


def state_of(reference):
    """The C state of the position a reference state (RigaState) holds."""
    return rebuild(reference._values())


# -- the rules arithmetic of one seat (scoring.py) -------------------------------------------------

cdef int hand_limit(u64 tableau):
    cdef int limit = HAND_LIMIT_BASE
    while tableau:
        limit += CARD_HAND_LIMIT[lowest_bit(tableau)]
        tableau &= tableau - 1
    return limit


cdef int extra_draws(u64 tableau):
    cdef int draws = 0
    while tableau:
        draws += CARD_EXTRA_DRAW[lowest_bit(tableau)]
        tableau &= tableau - 1
    return draws


cdef void item_values(u64 tableau, int city, int* values):
    """scoring.item_values: the 4 goods for a `city` building (Factors, the Exchange Office), then
    the 4 credits."""
    cdef int factor[4]
    cdef int g, c, printed
    cdef bint exchange = False
    factor[:] = [0, 0, 0, 0]
    while tableau:
        c = lowest_bit(tableau)
        tableau &= tableau - 1
        exchange |= CARD_EXCHANGE[c]
        if CARD_FACTOR_GOOD[c] >= 0:
            factor[CARD_FACTOR_GOOD[c]] += 1
    for g in range(4):
        printed = CITY_VALUE[city][g]
        if printed == 0:  # refused: worth nothing, unless the Exchange Office makes it base value
            values[g] = BASE_VALUE[g] + factor[g] if exchange else 0
        else:
            values[g] = printed + factor[g]
        values[4 + g] = CREDIT_VALUE[g]


cdef int build_cost(u64 tableau, int card):
    """scoring.build_cost: printed cost less this city's Builders' Guilds (never for brown cards)."""
    cdef int city = CARD_CITY[card], cost = CARD_COST[card], c
    if city != RIGA_CITY:
        while tableau:
            c = lowest_bit(tableau)
            tableau &= tableau - 1
            if CARD_CITY[c] == city:
                cost -= CARD_DISCOUNT[c]
    return cost if cost > 0 else 0


cdef int metric(int tile, u64 tableau):
    """scoring.metric: the buildings of the city or symbol that `tile` counts."""
    cdef int count = 0, c
    while tableau:
        c = lowest_bit(tableau)
        tableau &= tableau - 1
        if (CARD_CITY[c] if TILE_BY_CITY[tile] else CARD_SYMBOL[c]) == TILE_WHICH[tile]:
            count += 1
    return count


# The walk of scoring.minimal_payments, keeping only what a build being paid asks: the items that
# some legal (sufficient, minimal) payment extending what is paid holds more of.
cdef struct Walk:
    int n  # usable items (valued and held), in item order
    int item[NUM_ITEMS]
    int value[NUM_ITEMS]
    int top[NUM_ITEMS]
    int cost
    int counts[NUM_ITEMS]
    int paid[NUM_ITEMS]
    int items  # bit set of the next payable items


cdef void walk(Walk* w, int j, int total, int low):
    cdef int item, value, k, i
    if total >= w.cost:
        if total - low < w.cost:  # minimal
            for i in range(NUM_ITEMS):
                if w.counts[i] < w.paid[i]:
                    return
            for i in range(NUM_ITEMS):
                if w.counts[i] > w.paid[i]:
                    w.items |= 1 << i
        return
    if j == w.n:
        return
    item, value = w.item[j], w.value[j]
    # Payments holding fewer of an item than is paid extend nothing: not walked (the reference
    # lists them, then drops them).
    if w.paid[item] == 0:
        walk(w, j + 1, total, low)
    for k in range(1, w.top[j] + 1):
        if k >= w.paid[item]:
            w.counts[item] = k
            walk(w, j + 1, total + k * value, low if low < value else value)
        if total + k * value >= w.cost:
            break  # more copies only overshoot further
    w.counts[item] = 0


cdef class RigaCState:
    """One position of a game of Riga; a value: a transition returns a new state."""

    cdef Data d
    cdef readonly object kind
    cdef readonly int num_players
    cdef tuple log
    cdef object ref  # reference(), once asked
    cdef bint has_legal  # the acting seat's legal actions, once asked (apply checks them again)
    cdef int nlegal
    cdef int legal[NUM_ACTIONS]

    @staticmethod
    def initial(num_players, use_riga, use_gm):
        """RigaState.initial: a new game, before the start player is drawn (flow.set_up)."""
        cdef RigaCState s = RigaCState.__new__(RigaCState)
        cdef int p, n = num_players
        s.d.n, s.d.use_riga, s.d.use_gm, s.d.years = n, bool(use_riga), bool(use_gm), t.YEARS[n]
        s.num_players = n
        s.d.phase, s.d.season, s.d.start = START, SETUP, -1
        s.d.gdeck[:] = [t.DECK_COUNTS[0], t.DECK_COUNTS[1], t.DECK_COUNTS[2], t.DECK_COUNTS[3]]
        s.d.nrows = t.rows_per_spring(n)
        s.d.bpool = ((<u64>1) << NUM_CITY_CARDS) - 1
        for p in range(n):
            s.d.rsupply[p] = (((<u64>1) << NUM_CARDS) - 1) ^ s.d.bpool if use_riga else 0
        s.log = ()
        s.kind = KINDS[START]
        return s

    @staticmethod
    def from_reference(reference):
        """The C state of the position a reference state (RigaState) holds."""
        return state_of(reference)

    cdef RigaCState copy(self):
        cdef RigaCState s = RigaCState.__new__(RigaCState)
        s.d = self.d
        s.num_players = self.num_players
        s.log = self.log
        return s

    # -- the reference, for everything not written here ---------------------------------------

    def reference(self):
        """This position as the reference's RigaState (built once)."""
        if self.ref is None:
            ref = RigaState.__new__(RigaState)
            ref.__setstate__(dict(zip(FIELDS, self.key())))
            self.ref = ref
        return self.ref

    def __getattr__(self, name):
        return getattr(self.reference(), name)

    def key(self):
        """The reference's `_values()`: every field, as the reference holds it."""
        cdef int n = self.d.n, p
        return (
            n, bool(self.d.use_riga), bool(self.d.use_gm), self.d.years,
            self.d.phase, self.d.season, self.d.year, self.d.start,
            ints(self.d.queue, self.d.nqueue), self.d.builds,
            ints(self.d.gdeck, 4), ints(self.d.gdisc, 4),
            tuple([ints(self.d.rows[r], self.d.rowlen[r]) for r in range(self.d.nrows)]),
            cards_of(self.d.bpool),
            tuple([(self.d.bottom_card[i], self.d.bottom_seat[i]) for i in range(self.d.nbottom)]),
            ints(self.d.dnew, self.d.ndnew), ints(self.d.dold, self.d.ndold),
            ints(self.d.removed, self.d.nremoved),
            tuple([ints(self.d.hgoods[p], 4) for p in range(n)]),
            tuple([ints(self.d.kgoods[p], 4) for p in range(n)]),
            tuple([cards_of(self.d.hbuild[p]) for p in range(n)]),
            tuple([cards_of(self.d.sbuild[p]) for p in range(n)]),
            tuple([cards_of(self.d.tableau[p]) for p in range(n)]),
            ints(self.d.used, n),
            tuple([cards_of(self.d.rsupply[p]) for p in range(n)]),
            tuple([ints(self.d.tiles[i], 3) for i in range(self.d.ntiles)]),
            ints(self.d.flipped, self.d.nflipped), ints(self.d.drawn, self.d.ndrawn),
            (self.d.pending_card, ints(self.d.paid, NUM_ITEMS)) if self.d.has_pending else None,
            self.d.need, ints(self.d.choice, self.d.nchoice), self.log,
        )

    cdef void set_key(self, tuple key) except *:
        cdef int p, i
        (n, use_riga, use_gm, self.d.years, self.d.phase, self.d.season, self.d.year, self.d.start,
         queue, self.d.builds, gdeck, gdisc, rows, bpool, bbottom, dnew, dold, removed, hgoods, kgoods,
         hbuild, sbuild, tableau, used, rsupply, tiles, flipped, drawn, pending, self.d.need, choice,
         self.log) = key
        self.num_players = self.d.n = n
        self.d.use_riga, self.d.use_gm = bool(use_riga), bool(use_gm)
        self.d.nqueue = set_ints(self.d.queue, queue, MAX_SEATS)
        set_ints(self.d.gdeck, gdeck, 4)
        set_ints(self.d.gdisc, gdisc, 4)
        self.d.nrows = len(rows)
        if n > MAX_SEATS or self.d.nrows > MAX_ROWS or len(bbottom) > MAX_SEATS or len(tiles) > TILES_IN_PLAY:
            raise ValueError("riga C state: more seats, rows, cards under the deck or tiles than the rules have")
        for i in range(self.d.nrows):
            self.d.rowlen[i] = set_ints(self.d.rows[i], rows[i], ROW_CAP)
        self.d.bpool = mask_of(bpool)
        self.d.nbottom = len(bbottom)
        for i in range(self.d.nbottom):
            self.d.bottom_card[i], self.d.bottom_seat[i] = bbottom[i]
        self.d.ndnew = set_ints(self.d.dnew, dnew, DISPLAY_CAP)
        self.d.ndold = set_ints(self.d.dold, dold, DISPLAY_CAP)
        self.d.nremoved = set_ints(self.d.removed, removed, NUM_CITY_CARDS)
        for p in range(self.d.n):
            set_ints(self.d.hgoods[p], hgoods[p], 4)
            set_ints(self.d.kgoods[p], kgoods[p], 4)
            self.d.hbuild[p], self.d.sbuild[p] = mask_of(hbuild[p]), mask_of(sbuild[p])
            self.d.tableau[p], self.d.rsupply[p] = mask_of(tableau[p]), mask_of(rsupply[p])
            self.d.used[p] = used[p]
        self.d.ntiles = len(tiles)
        for i in range(self.d.ntiles):
            set_ints(self.d.tiles[i], tiles[i], 3)
        self.d.nflipped = set_ints(self.d.flipped, flipped, NUM_TILES)
        self.d.ndrawn = set_ints(self.d.drawn, drawn, NUM_TILES)
        self.d.has_pending = pending is not None
        if pending is not None:
            self.d.pending_card = pending[0]
            set_ints(self.d.paid, pending[1], NUM_ITEMS)
        self.d.nchoice = set_ints(self.d.choice, choice, START_BUILDING_CHOICES)
        self.kind = KINDS[self.d.phase]

    def __eq__(self, other):
        if isinstance(other, RigaCState):
            return self.key() == other.key()
        if isinstance(other, RigaData):
            return self.key() == other._values()
        return NotImplemented

    def __hash__(self):
        return hash(self.key())  # the reference's: hash(_values())

    def __reduce__(self):
        return rebuild, (self.key(),)

    def __repr__(self):
        return repr(self.reference())

    # -- what a playout asks -----------------------------------------------------------------

    def acting_players(self):
        if self.kind is not DECISION:
            return ()
        return (self.d.queue[0],)

    def legal_actions(self, seat):
        if not (type(seat) is int and 0 <= seat < self.d.n):
            return self.reference().legal_actions(seat)  # its error
        if self.kind is not DECISION or seat != self.d.queue[0]:
            return []
        self.ask_legal()
        return [self.legal[i] for i in range(self.nlegal)]

    cdef void ask_legal(self):
        if not self.has_legal:
            self.nlegal = self.legal_into(self.d.queue[0], self.legal)
            self.has_legal = True

    cdef int legal_into(self, int seat, int* out):
        """queries.legal_actions of the acting `seat`, sorted, into `out`; their number."""
        cdef int n = 0, r, g, i
        cdef u64 cards
        if self.d.phase == TAKE:
            for r in range(self.d.nrows):
                if self.d.rowlen[r]:
                    out[n] = TAKE_ROW + r
                    n += 1
            cards = 0
            for i in range(self.d.ndnew):
                cards |= (<u64>1) << self.d.dnew[i]
            for i in range(self.d.ndold):
                cards |= (<u64>1) << self.d.dold[i]
            while cards:
                out[n] = TAKE_BUILDING + lowest_bit(cards)
                n += 1
                cards &= cards - 1
            if n == 0:
                out[n] = TAKE_NOTHING
                n += 1
            return n
        if self.d.phase == BUILD:
            if self.d.has_pending:
                return self.pay_actions(seat, out)
            if self.d.builds < MAX_BUILDS_PER_TURN:
                cards = self.buildable(seat)
                while cards:
                    out[n] = START_BUILD + lowest_bit(cards)
                    n += 1
                    cards &= cards - 1
            out[n] = END_TURN
            return n + 1
        if self.d.phase == DISCARD:
            for g in range(4):
                if self.d.hgoods[seat][g]:
                    out[n] = DISCARD_GOOD + g
                    n += 1
            cards = self.d.hbuild[seat]
            while cards:
                out[n] = DISCARD_BUILDING + lowest_bit(cards)
                n += 1
                cards &= cards - 1
            return n
        for i in range(self.d.nchoice):  # KEEP
            out[i] = KEEP_START + i
        return self.d.nchoice

    cdef void available(self, int seat, int* avail):
        """scoring.available_items: the goods in hand, then each built credit not used yet."""
        cdef int i
        cdef bint built
        for i in range(4):
            avail[i] = self.d.hgoods[seat][i]
            built = self.d.tableau[seat] >> CREDIT_CARD[i] & 1
            avail[4 + i] = 1 if built and not (self.d.used[seat] >> i & 1) else 0

    cdef u64 buildable(self, int seat):
        """scoring.buildable: the hand buildings and own Riga buildings whose city's budget (the
        value of everything usable) reaches their cost."""
        cdef int avail[NUM_ITEMS]
        cdef int values[NUM_ITEMS]
        cdef int budget[5]
        cdef int city, i, card
        cdef u64 found = 0, cards = self.d.hbuild[seat] | self.d.rsupply[seat]
        self.available(seat, avail)
        for city in range(5):
            item_values(self.d.tableau[seat], city, values)
            budget[city] = 0
            for i in range(NUM_ITEMS):
                budget[city] += values[i] * avail[i]
        while cards:
            card = lowest_bit(cards)
            cards &= cards - 1
            if budget[CARD_CITY[card]] >= build_cost(self.d.tableau[seat], card):
                found |= (<u64>1) << card
        return found

    cdef int pay_actions(self, int seat, int* out):
        """queries._pay_actions: the items some legal payment extending what is paid holds more of."""
        cdef Walk w
        cdef int avail[NUM_ITEMS]
        cdef int values[NUM_ITEMS]
        cdef int i, n = 0
        self.available(seat, avail)
        item_values(self.d.tableau[seat], CARD_CITY[self.d.pending_card], values)
        w.n, w.items = 0, 0
        w.cost = build_cost(self.d.tableau[seat], self.d.pending_card)
        for i in range(NUM_ITEMS):
            w.counts[i], w.paid[i] = 0, self.d.paid[i]
            if values[i] > 0 and avail[i] > 0:
                w.item[w.n], w.value[w.n], w.top[w.n] = i, values[i], avail[i]
                w.n += 1
        walk(&w, 0, 0, NO_WALK_LOW)
        for i in range(NUM_ITEMS):
            if w.items >> i & 1:
                out[n] = PAY_GOOD + i
                n += 1
        return n

    cdef bint is_legal(self, int action):
        cdef int i
        self.ask_legal()
        for i in range(self.nlegal):
            if self.legal[i] == action:
                return True
        return False

    def apply(self, actions):
        if self.kind is not DECISION or type(actions) is not dict or len(actions) != 1:
            return self.by_reference_apply(actions)
        cdef int seat = self.d.queue[0]
        value = actions.get(seat)
        if type(value) is not int or not (0 <= value < NUM_ACTIONS and self.is_legal(value)):
            return self.by_reference_apply(actions)
        cdef RigaCState s = self.copy()
        s.apply_action(seat, value)
        s.settle()
        return s

    def by_reference_apply(self, actions):
        """What the reference's `apply` says: its error, or (a mapping that is not a dict, a bool
        for an int) its next state, as a C state."""
        return state_of(self.reference().apply(actions))

    cdef int chance_table(self, int* outcomes, const double** sums, double* buffer):
        """queries.chance_outcomes as `_chance_distribution` has them: the outcomes and the
        running sums of their odds, the very floats; their number."""
        cdef int n = 0, g, total, tile
        cdef u64 cards
        cdef double running = 0.0
        if self.d.phase == SETUP_GOODS or self.d.phase == SPRING_ROWS or self.d.phase == EXTRA:
            total = self.d.gdeck[0] + self.d.gdeck[1] + self.d.gdeck[2] + self.d.gdeck[3]
            for g in range(4):
                if self.d.gdeck[g]:
                    running += <double>self.d.gdeck[g] / <double>total
                    outcomes[n], buffer[n] = g, running
                    n += 1
            sums[0] = buffer
            return n
        if self.d.phase == SETUP_BUILDINGS or self.d.phase == SPRING_DISPLAY:
            cards = self.d.bpool
            while cards:
                outcomes[n] = lowest_bit(cards)
                n += 1
                cards &= cards - 1
        elif self.d.phase == START:
            for n in range(self.d.n):
                outcomes[n] = n
            n = self.d.n
        else:  # FLIP, DRAW_TILE: the tiles of the pool not drawn yet
            for tile in range(NUM_TILES):
                if (self.d.use_riga or tile != T_RIGA) and not self.tile_done(tile):
                    outcomes[n] = tile
                    n += 1
        sums[0] = UNIFORM_SUMS[n]
        return n

    cdef bint tile_done(self, int tile):
        cdef int i, count = self.d.ndrawn
        cdef const int* done = self.d.drawn
        if self.d.phase == FLIP:
            done, count = self.d.flipped, self.d.nflipped
        for i in range(count):
            if done[i] == tile:
                return True
        return False

    def _sample_chance(self, rng):
        """engine.core.sample_chance's draw: one rng.random() against the running sums."""
        cdef int outcomes[NUM_CITY_CARDS]
        cdef double buffer[4]
        cdef const double* sums
        cdef int count, lo, hi, mid
        if self.kind is not CHANCE:
            self.reference()._require(CHANCE, "chance_outcomes")
        count = self.chance_table(outcomes, &sums, buffer)
        cdef double x = rng.random() * sums[count - 1]
        lo, hi = 0, count - 1  # bisect_right(sums, x, 0, count - 1)
        while lo < hi:
            mid = (lo + hi) // 2
            if x < sums[mid]:
                hi = mid
            else:
                lo = mid + 1
        return outcomes[lo]

    def apply_chance(self, outcome):
        cdef int outcomes[NUM_CITY_CARDS]
        cdef double buffer[4]
        cdef const double* sums
        cdef int count, i, found = 0
        if self.kind is not CHANCE or type(outcome) is not int or not 0 <= outcome < NUM_CARDS:
            return state_of(self.reference().apply_chance(outcome))
        cdef int o = outcome
        count = self.chance_table(outcomes, &sums, buffer)
        for i in range(count):
            if outcomes[i] == o:
                found = 1
        if not found:
            return state_of(self.reference().apply_chance(outcome))
        cdef RigaCState s = self.copy()
        s.chance_step(o)
        s.settle()
        return s

    def returns(self):
        if self.d.phase != OVER:
            return self.reference().returns()  # its error
        return [float(total) for total in self.totals()]

    def ranks(self):
        if self.d.phase != OVER:
            return self.reference().ranks()  # its error
        return self.final_ranks(self.totals())

    def resample(self, known_to, rng):
        return state_of(self.reference().resample(known_to, rng))

    # -- the final count (queries.totals, scoring.py §4) ---------------------------------------

    cdef list totals(self):
        """queries.totals: the public scores plus the Money tile's VP."""
        cdef int p, i, n = self.d.n
        vp = self.public_scores()
        for i in range(self.d.ntiles):
            if self.d.tiles[i][0] == T_MONEY:
                money = [self.money(p) for p in range(n)]
                awards = t.MONEY_AWARDS[self.d.tiles[i][1]]
                for p in range(n):
                    vp[p] += money_tile_vp(money, awards, p)
        return vp

    cdef list public_scores(self):
        """queries.public_scores: base VP (built cards less 2 per building in hand) plus the Grand
        Master tiles' VP (scoring.grand_master_vp)."""
        cdef int p, i, tile, side, holder, q, n = self.d.n
        cdef int counts[MAX_SEATS]
        cdef bint bonus
        vp = []
        for p in range(n):  # base VP: built cards less 2 per building in hand
            vp.append(self.card_vp(p) - 2 * popcount(self.d.hbuild[p]))
        for i in range(self.d.ntiles):  # scoring.grand_master_vp
            tile, side, holder = self.d.tiles[i][0], self.d.tiles[i][1], self.d.tiles[i][2]
            if tile == T_MONEY or holder < 0:
                continue
            vp[holder] += t.TILE_HOLDER_VP
            for p in range(n):
                counts[p] = metric(tile, self.d.tableau[p])
            for p in range(n):
                if p == holder:
                    continue
                if side == SIDE_FIRST:
                    bonus = counts[p] >= TILE_FIRST_AT[tile]
                else:
                    bonus = counts[p] >= TILE_MAX_AT[tile]
                    for q in range(n):
                        if q != p and q != holder and counts[q] > counts[p]:
                            bonus = False
                if bonus:
                    vp[p] += t.TILE_BONUS_VP
        return vp

    cdef list final_ranks(self, list totals):
        """queries.ranks: by total, then money, then buildings built."""
        keys = [(totals[p], self.money(p), popcount(self.d.tableau[p])) for p in range(self.d.n)]
        return [1 + sum([other > mine for other in keys]) for mine in keys]

    cdef int card_vp(self, int p):
        cdef int vp = 0
        cdef u64 cards = self.d.tableau[p]
        while cards:
            vp += CARD_VP[lowest_bit(cards)]
            cards &= cards - 1
        return vp

    cdef int money(self, int p):
        """scoring.money: the base value of the goods in hand plus the unused credits."""
        cdef int avail[NUM_ITEMS]
        cdef int i, total = 0
        self.available(p, avail)
        for i in range(4):
            total += BASE_VALUE[i] * avail[i] + CREDIT_VALUE[i] * avail[4 + i]
        return total

    # -- the observation (observe.py), at every decision of a match ---------------------------

    def observation(self, seat):
        if not (type(seat) is int and 0 <= seat < self.d.n):
            return self.reference().observation(seat)  # its error
        cdef int me = seat, active = self.d.queue[0] if self.d.nqueue else -1, i
        cdef bint over = self.d.phase == OVER
        obs = {
            "seat": me,
            "phase": PHASES[self.d.phase],
            "season": SEASONS[self.d.season],
            "year": self.d.year,
            "years": self.d.years,
            "start_player": self.d.start,
            "turn_queue": [self.d.queue[i] for i in range(self.d.nqueue)],
            "active": active,
            "builds_this_turn": self.d.builds,
            "scores": self.totals() if over else self.public_scores(),
            "options": {"use_riga_buildings": bool(self.d.use_riga), "use_grand_master": bool(self.d.use_gm)},
            "rows": [[GOOD_NAMES[self.d.rows[r][i]] for i in range(self.d.rowlen[r])] for r in range(self.d.nrows)],
            "display_new": codes(self.d.dnew, self.d.ndnew),
            "display_old": codes(self.d.dold, self.d.ndold),
            "removed_buildings": codes(self.d.removed, self.d.nremoved),
            "goods_deck_size": self.d.gdeck[0] + self.d.gdeck[1] + self.d.gdeck[2] + self.d.gdeck[3],
            "building_deck_size": popcount(self.d.bpool) + self.d.nbottom,
            "building_deck_bottom_owners": [self.d.bottom_seat[i] for i in range(self.d.nbottom)],
            "goods_discard": goods_json(self.d.gdisc),
            "tiles": [{"tile": TILE_NAMES[self.d.tiles[i][0]], "side": SIDE_NAMES[self.d.tiles[i][1]],
                       "holder": self.d.tiles[i][2]} for i in range(self.d.ntiles)],
            "players": [self.player_json(p, over) for p in range(self.d.n)],
            "hand_goods": goods_json(self.d.hgoods[me]),
            "hand_buildings": mask_codes(self.d.hbuild[me]),
            "my_cards_under_deck": [CARD_CODES[self.d.bottom_card[i]] for i in range(self.d.nbottom)
                                    if self.d.bottom_seat[i] == me],
            "start_choice": codes(self.d.choice, self.d.nchoice) if self.d.nchoice and active == me else [],
            "start_choice_size": self.d.nchoice,
            "draws_pending": self.d.need,
            "tiles_turned_over": [TILE_NAMES[self.d.flipped[i]] for i in range(self.d.nflipped)],
            "tiles_drawn": [TILE_NAMES[self.d.drawn[i]] for i in range(self.d.ndrawn)],
            "pending_build": self.pending_json(),
            "recent_events": events_json(self.log),
        }
        if self.d.phase == DISCARD and active >= 0:
            obs["discards_left"] = self.hand_size(active) - hand_limit(self.d.tableau[active])
        if over:
            totals = self.totals()
            obs["final"] = {"totals": totals, "money": [self.money(p) for p in range(self.d.n)],
                            "ranks": self.final_ranks(totals)}
        return obs

    cdef dict player_json(self, int p, bint over):
        """observe._player: one seat's public side (every hand at the end)."""
        cdef int cities[5]
        cdef int symbols[3]
        cdef int vp = 0, c
        cdef u64 cards = self.d.tableau[p]
        cities[:] = [0, 0, 0, 0, 0]
        symbols[:] = [0, 0, 0]
        while cards:
            c = lowest_bit(cards)
            cards &= cards - 1
            cities[CARD_CITY[c]] += 1
            symbols[CARD_SYMBOL[c]] += 1
            vp += CARD_VP[c]
        cdef u64 hand = self.d.hbuild[p]
        info = {
            "seat": p,
            "tableau": mask_codes(self.d.tableau[p]),
            "credits_used": [CARD_CODES[CREDIT_CARD[c]] for c in range(4) if self.d.used[p] >> c & 1],
            "riga_supply": mask_codes(self.d.rsupply[p]),
            "city_counts": {CITY_NAMES[c]: cities[c] for c in range(5)},
            "knights": symbols[KNIGHT],
            "merchants": symbols[MERCHANT],
            "building_vp": vp,
            "hand_limit": hand_limit(self.d.tableau[p]),
            "goods_in_hand": self.d.hgoods[p][0] + self.d.hgoods[p][1] + self.d.hgoods[p][2] + self.d.hgoods[p][3],
            "buildings_in_hand": popcount(hand),
            "known_goods": goods_json(&self.d.hgoods[p][0] if over else &self.d.kgoods[p][0]),
            "known_buildings": mask_codes(hand if over else hand & ~self.d.sbuild[p]),
        }
        if over:
            info["money"] = self.money(p)
        return info

    cdef object pending_json(self):
        """observe._pending: the build being paid, or None."""
        cdef int card = self.d.pending_card, i
        if not self.d.has_pending:
            return None
        return {
            "card": CARD_CODES[card],
            "cost": build_cost(self.d.tableau[self.d.queue[0]], card),
            "paid_goods": goods_json(self.d.paid),
            "paid_credits": [CARD_CODES[CREDIT_CARD[i]] for i in range(4) if self.d.paid[4 + i]],
        }

    # -- the transitions (flow.py), on a fresh copy --------------------------------------------

    cdef void add_log(self, tuple event):
        events = self.log + (event,)
        self.log = events[len(events) - LOG_KEEP:] if len(events) > LOG_KEEP else events

    cdef void chance_step(self, int outcome):
        """flow.apply_chance without `settle`."""
        cdef int phase = self.d.phase
        if phase == START:
            self.d.start = outcome
            self.add_log(("start_player", outcome))
            if self.d.use_gm:
                self.d.phase = FLIP
            else:
                self.begin_hands()
        elif phase == FLIP:
            self.d.flipped[self.d.nflipped] = outcome
            self.d.nflipped += 1
        elif phase == DRAW_TILE:
            self.d.drawn[self.d.ndrawn] = outcome
            self.d.ndrawn += 1
        elif phase == SETUP_GOODS or phase == SPRING_ROWS or phase == EXTRA:
            self.d.gdeck[outcome] -= 1
            self.receive_good(outcome)
        else:  # a building card from the shuffled part of the deck
            self.d.bpool &= ~((<u64>1) << outcome)
            if phase == SETUP_BUILDINGS:
                self.d.choice[self.d.nchoice] = outcome
                self.d.nchoice += 1
            else:
                self.d.dnew[self.d.ndnew] = outcome
                self.d.ndnew += 1
                self.d.need -= 1

    cdef void receive_good(self, int good):
        cdef int slot, seat
        if self.d.phase == SPRING_ROWS:
            slot = self.row_target()
            self.d.rows[slot][self.d.rowlen[slot]] = good
            self.d.rowlen[slot] += 1
            return
        seat = self.d.queue[0]
        self.d.hgoods[seat][good] += 1
        if self.d.phase == SETUP_GOODS:  # starting goods are revealed: public
            self.d.kgoods[seat][good] += 1
            self.add_log(("start_good", seat, GOOD_NAMES[good]))
        else:  # EXTRA: hidden from the opponents
            self.d.need -= 1
            self.add_log(("extra_draw", seat))

    cdef void apply_action(self, int seat, int action):
        """flow.apply_action without `settle`."""
        if action < TAKE_ROW:
            self.keep_start_building(seat, action - KEEP_START)
        elif action <= TAKE_NOTHING:
            self.take(seat, action)
        elif action < PAY_GOOD:
            self.start_build(seat, action - START_BUILD)
        elif action < END_TURN:
            self.pay(seat, action - PAY_GOOD)
        elif action == END_TURN:
            self.end_turn()
        else:
            self.discard(seat, action)

    cdef void pop_queue(self):
        cdef int i
        for i in range(1, self.d.nqueue):
            self.d.queue[i - 1] = self.d.queue[i]
        self.d.nqueue -= 1

    cdef void keep_start_building(self, int seat, int index):
        cdef int kept = self.d.choice[index], i
        self.d.hbuild[seat] |= (<u64>1) << kept
        self.d.sbuild[seat] |= (<u64>1) << kept
        for i in range(self.d.nchoice):  # the other card goes under the building deck
            if i != index:
                self.d.bottom_card[self.d.nbottom], self.d.bottom_seat[self.d.nbottom] = self.d.choice[i], seat
                self.d.nbottom += 1
        self.d.nchoice = 0
        self.add_log(("keep_start_building", seat))
        self.pop_queue()
        if self.d.nqueue:
            self.d.phase = SETUP_GOODS
        else:
            self.d.year = 1
            self.begin_spring()

    cdef void take(self, int seat, int action):
        cdef int slot, i, card
        self.d.phase = BUILD
        if action < TAKE_BUILDING:
            slot = action - TAKE_ROW
            for i in range(self.d.rowlen[slot]):
                self.d.hgoods[seat][self.d.rows[slot][i]] += 1
                self.d.kgoods[seat][self.d.rows[slot][i]] += 1
            names = tuple([GOOD_NAMES[self.d.rows[slot][i]] for i in range(self.d.rowlen[slot])])
            self.d.rowlen[slot] = 0
            self.add_log(("take_row", seat, slot, names))
            self.d.need = extra_draws(self.d.tableau[seat])
            if self.d.need:
                self.d.phase = EXTRA
        elif action < TAKE_NOTHING:
            card = action - TAKE_BUILDING
            self.d.ndnew = without(self.d.dnew, self.d.ndnew, card)
            self.d.ndold = without(self.d.dold, self.d.ndold, card)
            self.d.hbuild[seat] |= (<u64>1) << card
            self.add_log(("take_building", seat, CARD_CODES[card]))
        else:
            self.add_log(("take_nothing", seat))

    cdef void start_build(self, int seat, int card):
        cdef int i
        self.d.has_pending, self.d.pending_card = 1, card
        for i in range(NUM_ITEMS):
            self.d.paid[i] = 0
        if build_cost(self.d.tableau[seat], card) == 0:
            self.complete_build(seat)

    cdef void pay(self, int seat, int item):
        cdef int values[NUM_ITEMS]
        cdef int i, total = 0
        self.d.paid[item] += 1
        item_values(self.d.tableau[seat], CARD_CITY[self.d.pending_card], values)
        for i in range(NUM_ITEMS):
            total += values[i] * self.d.paid[i]
        # complete once the city's values of what is paid reach the cost (§3.3: a legal payment)
        if total >= build_cost(self.d.tableau[seat], self.d.pending_card):
            self.complete_build(seat)

    cdef void complete_build(self, int seat):
        """Pay, move the card to the tableau, count the build, run the Grand Master check."""
        cdef int card = self.d.pending_card, i
        cdef u64 bit = (<u64>1) << card
        self.d.has_pending = 0
        self.pay_goods(seat, self.d.paid)
        goods, credits = [], []  # for the log: each good paid, as often as paid, then the credits
        for i in range(4):
            goods.extend([GOOD_NAMES[i]] * self.d.paid[i])
            if self.d.paid[4 + i]:
                self.d.used[seat] |= 1 << i
                credits.append(CARD_CODES[CREDIT_CARD[i]])
        if self.d.rsupply[seat] & bit:
            self.d.rsupply[seat] &= ~bit
        else:
            self.d.hbuild[seat] &= ~bit
            self.d.sbuild[seat] &= ~bit
        self.d.tableau[seat] |= bit
        self.d.builds += 1
        self.add_log(("build", seat, CARD_CODES[card], tuple(goods), tuple(credits)))
        if self.d.use_gm:
            self.grand_master_check(seat)

    cdef void grand_master_check(self, int builder):
        """scoring.gm_check: each tile in check order may go to the builder."""
        cdef int i, tile, side, holder, count
        cdef bint claims
        for i in range(self.d.ntiles):
            tile, side, holder = self.d.tiles[i][0], self.d.tiles[i][1], self.d.tiles[i][2]
            if tile == T_MONEY:
                continue
            count = metric(tile, self.d.tableau[builder])
            if side == SIDE_FIRST:
                claims = holder < 0 and count >= TILE_FIRST_AT[tile]
            elif holder < 0:
                claims = count >= TILE_MAX_AT[tile]
            else:  # a steal needs strictly more than the current holder; a tie stays
                claims = holder != builder and count > metric(tile, self.d.tableau[holder])
            if claims:
                self.d.tiles[i][2] = builder
                self.add_log(("claim", builder, TILE_NAMES[tile], holder))

    cdef void pay_goods(self, int seat, const int* goods):
        """Goods leave the hand face up; the public lower bound of the hand shrinks with them."""
        cdef int g
        for g in range(4):
            self.d.hgoods[seat][g] -= goods[g]
            self.d.kgoods[seat][g] = self.d.kgoods[seat][g] - goods[g] if self.d.kgoods[seat][g] > goods[g] else 0
            self.d.gdisc[g] += goods[g]

    cdef void end_turn(self):
        cdef int i, n = self.d.n
        self.pop_queue()
        self.d.builds = 0
        if self.d.nqueue:
            self.d.phase = TAKE
        elif self.d.season == SUMMER:  # autumn: the summer order reversed
            self.d.season, self.d.phase, self.d.nqueue = AUTUMN, TAKE, n
            for i in range(n):
                self.d.queue[i] = (self.d.start + n - 1 - i) % n
        else:
            self.begin_winter()

    cdef void discard(self, int seat, int action):
        cdef int one[4]
        cdef int g, card
        if action < DISCARD_BUILDING:
            g = action - DISCARD_GOOD
            one[:] = [0, 0, 0, 0]
            one[g] = 1
            self.pay_goods(seat, one)
            self.add_log(("discard", seat, GOOD_NAMES[g]))
        else:
            card = action - DISCARD_BUILDING
            self.d.hbuild[seat] &= ~((<u64>1) << card)
            self.d.sbuild[seat] &= ~((<u64>1) << card)
            self.d.removed[self.d.nremoved] = card
            self.d.nremoved += 1
            self.add_log(("discard", seat, CARD_CODES[card]))

    cdef void settle(self):
        """flow.settle: the automatic steps until a chance node with outcomes, a decision or the end."""
        self.run_automatic_steps()
        self.kind = KINDS[self.d.phase]

    cdef void run_automatic_steps(self):
        cdef int phase, seat, pool = 8 if self.d.use_riga else 7  # queries.tile_pool's size
        cdef int tiles = TILES_IN_PLAY if TILES_IN_PLAY < pool else pool
        while True:
            phase = self.d.phase
            if phase == FLIP:
                if self.d.nflipped < tiles:
                    return
                self.d.phase = DRAW_TILE
            elif phase == DRAW_TILE:
                if self.d.ndrawn < tiles:
                    return
                self.lay_out_tiles()
                self.begin_hands()
            elif phase == SETUP_GOODS:
                if self.hand_value(self.d.queue[0]) < START_GOODS_VALUE and self.goods_ready():
                    return
                self.d.phase, self.d.nchoice = SETUP_BUILDINGS, 0
            elif phase == SETUP_BUILDINGS:
                if self.d.nchoice < START_BUILDING_CHOICES and self.d.bpool:
                    return
                self.d.phase = KEEP
                return
            elif phase == SPRING_ROWS:
                if self.row_target() >= 0 and self.goods_ready():
                    return
                self.begin_display()
            elif phase == SPRING_DISPLAY:
                if self.d.need > 0 and self.d.bpool:
                    return
                if self.d.need > 0 and self.d.nbottom:  # the shuffled part is gone: the bottom cards follow
                    self.d.dnew[self.d.ndnew] = self.d.bottom_card[0]
                    self.d.ndnew += 1
                    self.pop_bottom()
                    self.d.need -= 1
                    continue
                self.begin_summer()
            elif phase == EXTRA:
                if self.d.need > 0 and self.goods_ready():
                    return
                self.d.need, self.d.phase = 0, BUILD
            elif phase == DISCARD:
                if not self.d.nqueue:
                    self.end_winter()
                    continue
                seat = self.d.queue[0]
                if self.hand_size(seat) > hand_limit(self.d.tableau[seat]):
                    return
                self.pop_queue()
            else:
                return

    cdef void pop_bottom(self):
        cdef int i
        for i in range(1, self.d.nbottom):
            self.d.bottom_card[i - 1], self.d.bottom_seat[i - 1] = self.d.bottom_card[i], self.d.bottom_seat[i]
        self.d.nbottom -= 1

    cdef int hand_value(self, int seat):
        cdef int g, value = 0
        for g in range(4):
            value += BASE_VALUE[g] * self.d.hgoods[seat][g]
        return value

    cdef int hand_size(self, int seat):
        """queries.hand_size: goods cards plus building cards in hand (not the Riga supply)."""
        cdef int* goods = self.d.hgoods[seat]
        return goods[0] + goods[1] + goods[2] + goods[3] + popcount(self.d.hbuild[seat])

    cdef bint goods_ready(self):
        """True when a goods card can be drawn, reshuffling the discards into the deck if needed."""
        cdef int g
        cdef int* deck = self.d.gdeck
        cdef int* discards = self.d.gdisc
        if deck[0] or deck[1] or deck[2] or deck[3]:
            return True
        if not (discards[0] or discards[1] or discards[2] or discards[3]):
            return False
        for g in range(4):
            deck[g], discards[g] = discards[g], 0
        self.add_log(("reshuffle_goods",))
        return True

    cdef void lay_out_tiles(self):
        """flow.lay_out_tiles: the drawn tiles in check order, each on its side, in the supply."""
        cdef int i, j, tile
        self.d.ntiles = 0
        for i in range(NUM_TILES):
            tile = TILE_ORDER[i]
            for j in range(self.d.ndrawn):
                if self.d.drawn[j] == tile:
                    self.d.tiles[self.d.ntiles][0] = tile
                    self.d.tiles[self.d.ntiles][1] = self.tile_side(tile)
                    self.d.tiles[self.d.ntiles][2] = -1
                    self.d.ntiles += 1

    cdef int tile_side(self, int tile):
        cdef int j
        if tile == T_MONEY:
            return SIDE_P4 if self.d.n == 4 else SIDE_P23
        for j in range(self.d.nflipped):
            if self.d.flipped[j] == tile:
                return SIDE_FIRST
        return SIDE_MAX

    cdef void summer_order(self):
        cdef int i
        for i in range(self.d.n):
            self.d.queue[i] = (self.d.start + i) % self.d.n
        self.d.nqueue = self.d.n

    cdef void begin_hands(self):
        self.d.phase, self.d.season = SETUP_GOODS, SETUP
        self.summer_order()

    cdef int row_target(self):
        """The slot that gets the next spring goods card: short leftovers first, then new rows; -1: none."""
        cdef int slot, i, value
        for slot in range(self.d.nrows):
            if self.d.rowlen[slot]:
                value = 0
                for i in range(self.d.rowlen[slot]):
                    value += BASE_VALUE[self.d.rows[slot][i]]
                if value < MIN_ROW_VALUE:
                    return slot
        for slot in range(self.d.nrows):
            if not self.d.rowlen[slot]:
                return slot
        return -1

    cdef void begin_spring(self):
        self.d.season, self.d.phase = SPRING, SPRING_ROWS

    cdef void begin_display(self):
        cdef int i
        for i in range(self.d.ndold):
            self.d.removed[self.d.nremoved] = self.d.dold[i]
            self.d.nremoved += 1
        for i in range(self.d.ndnew):
            self.d.dold[i] = self.d.dnew[i]
        self.d.ndold, self.d.ndnew = self.d.ndnew, 0
        self.d.need = self.d.n + 1  # components.new_buildings_per_spring
        self.d.phase = SPRING_DISPLAY

    cdef void begin_summer(self):
        self.d.need = 0
        self.d.season, self.d.phase, self.d.builds = SUMMER, TAKE, 0
        self.summer_order()

    cdef void begin_winter(self):
        cdef int i, p, n = 0
        self.d.season, self.d.phase = WINTER, DISCARD
        for i in range(self.d.n):  # the seats over their hand limit, in summer order
            p = (self.d.start + i) % self.d.n
            if self.hand_size(p) > hand_limit(self.d.tableau[p]):
                self.d.queue[n] = p
                n += 1
        self.d.nqueue = n

    cdef void end_winter(self):
        self.d.start = (self.d.start + 1) % self.d.n
        if self.d.year == self.d.years:
            self.d.season, self.d.phase = GAME_OVER, OVER
        else:
            self.d.year += 1
            self.begin_spring()


cdef int without(int* cards, int n, int card):
    """Drop `card` from the first `n` of `cards`, keeping the order; the new count."""
    cdef int i, kept = 0
    for i in range(n):
        if cards[i] != card:
            cards[kept] = cards[i]
            kept += 1
    return kept


cdef int money_tile_vp(list money, awards, int p):
    """scoring.money_tile_vp for seat `p`: ranked by money, tied seats share their places'
    awards (rounded down); no money, nothing."""
    cdef int mine = money[p], first = 0, group = 0, pool = 0, k
    if mine <= 0:
        return 0
    for other in money:
        first += other > mine
        group += other == mine
    for k in range(first, first + group):
        if k < len(awards):
            pool += awards[k]
    return pool // group


# -- the observation's pieces (observe.py) ----------------------------------------------------------

cdef list codes(const int* cards, int n):
    return [CARD_CODES[cards[i]] for i in range(n)]


cdef list mask_codes(u64 cards):
    found = []
    while cards:
        found.append(CARD_CODES[lowest_bit(cards)])
        cards &= cards - 1
    return found


cdef dict goods_json(const int* counts):
    return {GOOD_NAMES[0]: counts[0], GOOD_NAMES[1]: counts[1], GOOD_NAMES[2]: counts[2], GOOD_NAMES[3]: counts[3]}


cdef list events_json(tuple log):
    """observe._events: the log's flat tuples as lists, the goods (and credits) of a take or a
    build as lists too."""
    events = []
    for e in log:
        if e[0] == "build":
            events.append([e[0], e[1], e[2], list(e[3]), list(e[4])])
        elif e[0] == "take_row":
            events.append([e[0], e[1], e[2], list(e[3])])
        else:
            events.append(list(e))
    return events
