# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Lost Cities: Rivals' State in C: the compiled engine's, when scripts/build_engine.py built this
module.

The Python sources (state.py, flow.py, queries.py, contract.py) are the reference; this is the
same rules over one C struct of fixed arrays (unseen counts, the display, the expeditions), so that
a reveal, a bid or a placed card costs a struct copy instead of a clone of 23 Python fields and
new tuples. tests/engine/lost_cities_rivals/test_c_state.py plays it against the reference node by
node, every option; every other Lost Cities: Rivals test runs on it when the compiled engine does.

In C: what a playout asks (`kind`, `acting_players`, `legal_actions`, `apply`, `apply_chance`, the
chance draw `_sample_chance`, `returns`) and the observation, which a match builds at every
decision. Everything else (labels, visibility, `chance_outcomes`, `ranks`, `resample`, the fields
by name) is the reference state's: `reference()` builds it once per state and `__getattr__` hands
it what this class does not define. An argument the fast path does not take (an illegal action, a
bad seat, a mapping that is not a dict) goes to the reference too, which raises its own error or
answers; so errors read exactly as the reference's.
"""

from engine.core import NodeKind
from engine.lost_cities_rivals.components import COLOURS, LABELS
from engine.lost_cities_rivals.contract import RivalsState
from engine.lost_cities_rivals.phases import KIND_OF_PHASE, PHASE_NAMES
from engine.lost_cities_rivals.state import FIELDS, RivalsData

# sizes (components.py), phases (phases.py), action ids (actions.py)
cdef enum:
    MAX_SEATS = 4
    NUM_COLOURS = 5
    NUM_KINDS = 50
    DECK_SIZE = 80
    PILE_SIZE = 20
    MAX_NUMBERS = 13  # number cards of one colour
    WAGERS_PER_COLOUR = 2  # starting wagers
    DEAL = 0
    TURN = 1
    BID = 2
    TAKE = 3
    BOX = 4
    REVEAL = 5
    OVER = 6
    NO_SEAT = -1
    UNCOVER = 0
    PASS = 1
    BID_BASE = 2
    PLACE_BASE = 38
    END_TAKE = 88
    BOX_BASE = 89
    SKIP_BOX = 139
    MAX_LEGAL = 64

KINDS = tuple(KIND_OF_PHASE)
PHASES = tuple(PHASE_NAMES)
CARD_LABELS = tuple(LABELS)
COLOUR_LABELS = tuple(COLOURS)
CHANCE = NodeKind.CHANCE
DECISION = NodeKind.DECISION
DECK_COUNTS = tuple([(3, 2, 2, 2, 2, 1, 1, 1, 1, 1)[k % 10] for k in range(NUM_KINDS)])


cdef struct Data:
    # the options
    int n, display_limit, start_player
    # the fields of state.py, in its order; tuples are arrays with a count
    int phase
    int coins[MAX_SEATS]
    int centre, revealed
    int unseen[NUM_KINDS]
    int display[DECK_SIZE]
    int ndisplay
    int box[DECK_SIZE]
    int nbox
    int wagers[MAX_SEATS * NUM_COLOURS]
    int numbers[MAX_SEATS * NUM_COLOURS][MAX_NUMBERS]
    int nnumbers[MAX_SEATS * NUM_COLOURS]
    int starting[MAX_SEATS][2]
    int nstarting[MAX_SEATS]
    int bottom[NUM_COLOURS * WAGERS_PER_COLOUR]
    int nbottom
    int turn, starter, high_bid, high_bidder
    int still_in[MAX_SEATS]
    int nstill_in
    int to_act
    # derived: each seat's expedition points (state.py's `points`)
    int points[MAX_SEATS]


cdef tuple ints(const int* values, int n):
    return tuple([values[i] for i in range(n)])


cdef int set_ints(int* target, object values, int capacity) except -1:
    """Copy a tuple into a C array; the count. Longer than the rules allow: an error, not an overrun."""
    cdef int i, n = len(values)
    if n > capacity:
        raise ValueError(f"lost_cities_rivals C state: {n} values where the rules allow {capacity}")
    for i in range(n):
        target[i] = values[i]
    return n


cdef inline int expedition_score(int wagers, const int* numbers, int count):
    """scoring.expedition_score: (1 + wagers) x footprints, plus 8 for four numbers or more."""
    cdef int i, steps = 0
    for i in range(count):
        steps += 1 if numbers[i] <= 5 else 2
    return (1 + wagers) * steps + (8 if count >= 4 else 0)


cdef int remove_first(int* cards, int count, int kind):
    """flow._without: drop the first copy of `kind`, keeping the order; the new count."""
    cdef int i, j
    for i in range(count):
        if cards[i] == kind:
            for j in range(i, count - 1):
                cards[j] = cards[j + 1]
            return count - 1
    return count


def rebuild(key):
    """A state from its `key()` (pickle's way back)."""
    cdef LostCitiesRivalsCState s = LostCitiesRivalsCState.__new__(LostCitiesRivalsCState)
    s.set_key(key)
    return s


def state_of(reference):
    """The C state of the position a reference state (RivalsState) holds."""
    return rebuild(reference._key())


cdef class LostCitiesRivalsCState:
    """One position of a game of Lost Cities: Rivals; a value: a transition returns a new state."""

    cdef Data d
    cdef readonly object kind
    cdef readonly int num_players
    cdef object ref  # reference(), once asked

    @staticmethod
    def initial(int num_players, int display_limit=0, int start_player=0):
        """RivalsState(num_players, display_limit, start_player): before the deal."""
        cdef LostCitiesRivalsCState s = LostCitiesRivalsCState.__new__(LostCitiesRivalsCState)
        cdef int p, k
        s.num_players = s.d.n = num_players
        s.d.display_limit, s.d.start_player = display_limit, start_player
        s.d.phase = DEAL
        for p in range(num_players):
            s.d.coins[p] = {2: 18, 3: 12, 4: 9}[num_players]  # components.STARTING_COINS
        for k in range(NUM_KINDS):
            s.d.unseen[k] = DECK_COUNTS[k]
        s.d.turn = start_player
        s.d.starter = s.d.high_bidder = s.d.to_act = NO_SEAT
        s.kind = CHANCE
        return s

    @staticmethod
    def from_reference(reference):
        """The C state of the position a reference state (RivalsState) holds."""
        return state_of(reference)

    cdef LostCitiesRivalsCState copy(self):
        cdef LostCitiesRivalsCState s = LostCitiesRivalsCState.__new__(LostCitiesRivalsCState)
        s.d = self.d
        s.num_players = self.num_players
        return s

    # -- the reference, for everything not written here ---------------------------------------

    def reference(self):
        """This position as the reference's RivalsState (built once)."""
        if self.ref is None:
            ref = RivalsState()
            for name, value in zip(FIELDS, self.key()):
                setattr(ref, name, value)
            ref.points = ints(self.d.points, self.d.n)
            ref.unseen_memo = ref._acting = ref._legal = ref._outcomes = None
            ref.kind = self.kind
            self.ref = ref
        return self.ref

    def __getattr__(self, name):
        return getattr(self.reference(), name)

    def key(self):
        """The reference's `_key()`: every field of state.FIELDS, as the reference holds it."""
        cdef int n = self.d.n, p, slots = n * NUM_COLOURS
        return (
            n, self.d.display_limit, self.d.start_player, self.d.phase, ints(self.d.coins, n),
            self.d.centre, self.d.revealed, ints(self.d.unseen, NUM_KINDS),
            ints(self.d.display, self.d.ndisplay), ints(self.d.box, self.d.nbox),
            ints(self.d.wagers, slots),
            tuple([ints(self.d.numbers[p], self.d.nnumbers[p]) for p in range(slots)]),
            tuple([ints(self.d.starting[p], self.d.nstarting[p]) for p in range(n)]),
            ints(self.d.bottom, self.d.nbottom), self.d.turn, self.d.starter, self.d.high_bid,
            self.d.high_bidder, ints(self.d.still_in, self.d.nstill_in), self.d.to_act,
        )

    cdef int set_key(self, tuple key) except -1:
        cdef int p, n
        (n, self.d.display_limit, self.d.start_player, self.d.phase, coins, self.d.centre,
         self.d.revealed, unseen, display, box, wagers, numbers, starting, bottom, self.d.turn,
         self.d.starter, self.d.high_bid, self.d.high_bidder, still_in, self.d.to_act) = key
        if not 2 <= n <= MAX_SEATS:
            raise ValueError(f"lost_cities_rivals C state: {n} seats")
        self.num_players = self.d.n = n
        set_ints(self.d.coins, coins, n)
        set_ints(self.d.unseen, unseen, NUM_KINDS)
        self.d.ndisplay = set_ints(self.d.display, display, DECK_SIZE)
        self.d.nbox = set_ints(self.d.box, box, DECK_SIZE)
        set_ints(self.d.wagers, wagers, n * NUM_COLOURS)
        for p in range(n * NUM_COLOURS):
            self.d.nnumbers[p] = set_ints(self.d.numbers[p], numbers[p], MAX_NUMBERS)
        for p in range(n):
            self.d.nstarting[p] = set_ints(self.d.starting[p], starting[p], 2)
        self.d.nbottom = set_ints(self.d.bottom, bottom, NUM_COLOURS * WAGERS_PER_COLOUR)
        self.d.nstill_in = set_ints(self.d.still_in, still_in, MAX_SEATS)
        for p in range(n):  # flow.count_points
            self.d.points[p] = self.expedition_points(p)
        self.kind = KINDS[self.d.phase]
        return 0

    cdef int expedition_points(self, int seat):
        cdef int c, slot, total = 0
        for c in range(NUM_COLOURS):
            slot = seat * NUM_COLOURS + c
            total += expedition_score(self.d.wagers[slot], self.d.numbers[slot], self.d.nnumbers[slot])
        return total

    def __eq__(self, other):
        if isinstance(other, LostCitiesRivalsCState):
            return self.key() == other.key()
        if isinstance(other, RivalsData):
            return self.reference() == other
        return NotImplemented

    def __hash__(self):
        return hash(self.key())  # the reference's: hash(_key())

    def __reduce__(self):
        return rebuild, (self.key(),)

    def __repr__(self):
        return repr(self.reference())

    # -- what a playout asks -----------------------------------------------------------------

    cdef int actor(self):
        """queries.actor: the seat that decides now, or -1."""
        if self.d.phase == TURN:
            return self.d.turn
        if self.d.phase == BID:
            return self.d.to_act
        if self.d.phase == TAKE or self.d.phase == BOX:
            return self.d.high_bidder
        return NO_SEAT

    def acting_players(self):
        if self.kind is not DECISION:
            return ()
        return (self.actor(),)

    def legal_actions(self, seat):
        cdef int legal[MAX_LEGAL]
        if not (type(seat) is int and 0 <= seat < self.d.n):
            return self.reference().legal_actions(seat)  # its error
        if self.kind is not DECISION or seat != self.actor():
            return []
        return list(ints(legal, self.legal(seat, legal)))

    cdef int legal(self, int seat, int* out):
        """contract._actions_of the acting `seat` into `out` (sorted); the count."""
        cdef int count = 0, a, top = self.d.high_bid + 1
        if self.d.phase == TURN:
            # queries.turn_actions: bids need a display; a full display forces one (A2)
            top = 1 if self.d.ndisplay else self.d.coins[seat] + 1
            if not (self.d.display_limit and self.d.ndisplay >= self.d.display_limit
                    and self.d.ndisplay and self.d.coins[seat] >= 1):
                out[0] = UNCOVER
                count = 1
        elif self.d.phase == BID:
            out[0] = PASS
            count = 1
        elif self.d.phase == TAKE:
            return self.place_actions(seat, out)
        else:
            return self.box_actions(out)
        for a in range(BID_BASE + top - 1, BID_BASE + self.d.coins[seat]):
            out[count] = a
            count += 1
        return count

    cdef int place_actions(self, int seat, int* out):
        """queries.place_actions (sorted, each kind once), then END_TAKE."""
        cdef int shown[NUM_KINDS]
        cdef int highest[NUM_COLOURS]
        cdef int k, c, slot, rank, top, count = 0
        self.kinds_shown(shown)
        for c in range(NUM_COLOURS):
            slot = seat * NUM_COLOURS + c
            highest[c] = self.d.numbers[slot][self.d.nnumbers[slot] - 1] if self.d.nnumbers[slot] else 0
        for k in range(NUM_KINDS):
            if not shown[k]:
                continue
            top, rank = highest[k // 10], k % 10
            if (rank and rank + 1 >= top) or (not rank and not top):
                out[count] = PLACE_BASE + k
                count += 1
        out[count] = END_TAKE
        return count + 1

    cdef int box_actions(self, int* out):
        """BOX of each kind on display (sorted, once each), then SKIP_BOX."""
        cdef int shown[NUM_KINDS]
        cdef int k, count = 0
        self.kinds_shown(shown)
        for k in range(NUM_KINDS):
            if shown[k]:
                out[count] = BOX_BASE + k
                count += 1
        out[count] = SKIP_BOX
        return count + 1

    cdef void kinds_shown(self, int* shown):
        cdef int i
        for i in range(NUM_KINDS):
            shown[i] = 0
        for i in range(self.d.ndisplay):
            shown[self.d.display[i]] = 1

    cdef bint is_legal(self, int seat, int action):
        cdef int legal[MAX_LEGAL]
        cdef int i
        for i in range(self.legal(seat, legal)):
            if legal[i] == action:
                return True
        return False

    def apply(self, actions):
        cdef int seat, action
        if self.kind is not DECISION or type(actions) is not dict or len(actions) != 1:
            return self.by_reference_apply(actions)
        seat = self.actor()
        value = actions.get(seat)
        if type(value) is not int or not self.is_legal(seat, value):
            return self.by_reference_apply(actions)
        action = value
        cdef LostCitiesRivalsCState s = self.copy()
        if self.d.phase == TURN:
            s.play_turn(seat, action)
        elif self.d.phase == BID:
            s.bid(seat, action)
        elif self.d.phase == TAKE:
            s.take(seat, action)
        else:
            s.box_card(action)
        s.kind = KINDS[s.d.phase]
        return s

    def by_reference_apply(self, actions):
        """What the reference's `apply` says: its error, or (a mapping that is not a dict, a bool
        for an int) its next state, as a C state."""
        return state_of(self.reference().apply(actions))

    # -- chance ------------------------------------------------------------------------------

    cdef int wager_pool(self, int* pool):
        """queries.wager_pool into `pool`; the sum."""
        cdef int c, p, i, total = 0
        for c in range(NUM_COLOURS):
            pool[c] = WAGERS_PER_COLOUR
        for p in range(self.d.n):
            for i in range(self.d.nstarting[p]):
                pool[self.d.starting[p][i]] -= 1
        for i in range(self.d.nbottom):
            pool[self.d.bottom[i]] -= 1
        for c in range(NUM_COLOURS):
            total += pool[c]
        return total

    cdef int distribution(self, int* outcomes, double* sums):
        """contract._chance_distribution: the outcomes and their running sums (the same float
        additions of the same divisions, so a seeded draw picks what the reference picks)."""
        cdef int pool[NUM_COLOURS]
        cdef int k, total, count = 0
        cdef double running = 0.0
        cdef int* counts = self.d.unseen
        cdef int kinds = NUM_KINDS
        if self.d.phase == DEAL:
            total = self.wager_pool(pool)
            if not total:  # only the cards put under the stack: the top one comes next
                outcomes[0], sums[0] = self.d.bottom[0], 1.0
                return 1
            counts, kinds = pool, NUM_COLOURS
        else:
            total = DECK_SIZE - self.d.revealed
        for k in range(kinds):
            if counts[k]:
                running += <double>counts[k] / total
                outcomes[count], sums[count] = k, running
                count += 1
        return count

    def _sample_chance(self, rng):
        """engine.core.sample_chance's draw: one rng.random() against the running sums."""
        cdef int outcomes[NUM_KINDS]
        cdef double sums[NUM_KINDS]
        cdef int count, lo, hi, mid
        if self.kind is not CHANCE:
            self.reference()._require(CHANCE, "chance_outcomes")
        count = self.distribution(outcomes, sums)
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
        cdef int outcomes[NUM_KINDS]
        cdef double sums[NUM_KINDS]
        cdef int i, count, found = 0
        if self.kind is not CHANCE or type(outcome) is not int:
            return state_of(self.reference().apply_chance(outcome))
        count = self.distribution(outcomes, sums)
        for i in range(count):
            if outcomes[i] == outcome:
                found = 1
        if not found:
            return state_of(self.reference().apply_chance(outcome))
        cdef LostCitiesRivalsCState s = self.copy()
        if self.d.phase == DEAL:
            s.deal_starting_wager(outcome)
        else:
            s.reveal(outcome)
        s.kind = KINDS[s.d.phase]
        return s

    def returns(self):
        if self.d.phase != OVER:
            return self.reference().returns()  # its error
        return [float(self.d.points[p] + self.d.coins[p]) for p in range(self.d.n)]

    def resample(self, known_to, rng):
        return state_of(self.reference().resample(known_to, rng))

    # -- the observation (observe.py), at every decision of a match ---------------------------

    def observation(self, seat):
        if not (type(seat) is int and 0 <= seat < self.d.n):
            return self.reference().observation(seat)  # its error
        cdef int p, n = self.d.n
        cdef int pile = min(self.d.revealed // PILE_SIZE, 3)
        scores = [self.d.points[p] + self.d.coins[p] for p in range(n)]
        return {
            "seat": seat,
            "phase": PHASES[self.d.phase],
            "num_players": n,
            "display_limit": self.d.display_limit,
            "start_player": self.d.start_player,
            "turn_player": self.d.turn,
            "to_act": self.actor() if self.kind is DECISION else None,
            "coins": [self.d.coins[p] for p in range(n)],
            "centre": self.d.centre,
            "scores": scores,
            "cards_revealed": self.d.revealed,
            "pile": pile + 1,
            "pile_cards_left": (pile + 1) * PILE_SIZE - self.d.revealed,
            "piles_to_come": 3 - pile,
            "display": [CARD_LABELS[self.d.display[p]] for p in range(self.d.ndisplay)],
            "box": [CARD_LABELS[self.d.box[p]] for p in range(self.d.nbox)],
            "expeditions": [self.expeditions(p) for p in range(n)],
            "starting_wagers": [[COLOUR_LABELS[self.d.starting[p][i]] for i in range(self.d.nstarting[p])]
                                for p in range(n)],
            "starting_wager_bottom": [COLOUR_LABELS[self.d.bottom[p]] for p in range(self.d.nbottom)],
            "unseen": {CARD_LABELS[p]: self.d.unseen[p] for p in range(NUM_KINDS) if self.d.unseen[p]},
            "auction": self.auction(),
            "winners": self.winners(scores) if self.d.phase == OVER else None,
        }

    cdef dict expeditions(self, int seat):
        cdef int c, slot
        out = {}
        for c in range(NUM_COLOURS):
            slot = seat * NUM_COLOURS + c
            out[COLOUR_LABELS[c]] = {"wagers": self.d.wagers[slot],
                                     "numbers": list(ints(self.d.numbers[slot], self.d.nnumbers[slot]))}
        return out

    cdef object auction(self):
        if self.d.starter == NO_SEAT:
            return None
        return {"starter": self.d.starter, "high_bid": self.d.high_bid,
                "high_bidder": self.d.high_bidder, "in": list(ints(self.d.still_in, self.d.nstill_in))}

    cdef list winners(self, list scores):
        best = max(scores)
        return [p for p, score in enumerate(scores) if score == best]

    # -- the flow (flow.py), on a fresh copy -------------------------------------------------

    cdef void clear_auction(self):
        self.d.high_bid = 0
        self.d.starter = self.d.high_bidder = self.d.to_act = NO_SEAT
        self.d.nstill_in = 0

    cdef void deal_starting_wager(self, int colour):
        """Seat by seat, two each; a second card of the first card's colour goes under the stack."""
        cdef int pool[NUM_COLOURS]
        cdef int seat = 0, i
        if not self.wager_pool(pool):  # the top card under the stack is the one drawn
            for i in range(self.d.nbottom - 1):
                self.d.bottom[i] = self.d.bottom[i + 1]
            self.d.nbottom -= 1
        while self.d.nstarting[seat] >= 2:
            seat += 1
        if self.d.nstarting[seat] == 1 and self.d.starting[seat][0] == colour:
            self.d.bottom[self.d.nbottom] = colour
            self.d.nbottom += 1
            return
        self.d.starting[seat][self.d.nstarting[seat]] = colour
        self.d.nstarting[seat] += 1
        self.d.wagers[seat * NUM_COLOURS + colour] += 1
        if seat == self.d.n - 1 and self.d.nstarting[seat] == 2:
            self.d.phase = TURN

    cdef void reveal(self, int kind):
        cdef int p, share
        self.d.unseen[kind] -= 1
        self.d.display[self.d.ndisplay] = kind
        self.d.ndisplay += 1
        self.d.revealed += 1
        # After an auction the winner's left neighbour plays next, else the revealer's (§2.5).
        self.d.turn = ((self.d.high_bidder if self.d.high_bidder != NO_SEAT else self.d.turn) + 1) % self.d.n
        self.clear_auction()
        self.d.phase = TURN
        if self.d.revealed % PILE_SIZE == 0:
            if self.d.revealed == DECK_SIZE:
                self.d.phase = OVER  # at once: the centre scores nothing (A17)
            else:  # flow.share_centre: the remainder stays in the centre (A15)
                share = self.d.centre // self.d.n
                for p in range(self.d.n):
                    self.d.coins[p] += share
                self.d.centre -= share * self.d.n

    cdef void play_turn(self, int seat, int action):
        cdef int p
        if action == UNCOVER:
            self.d.phase = REVEAL
            return
        # Opening an auction is the opening bid; everybody, the starter included, is still in.
        self.d.phase = BID
        self.d.starter = self.d.high_bidder = seat
        self.d.high_bid = action - BID_BASE + 1
        for p in range(self.d.n):
            self.d.still_in[p] = p
        self.d.nstill_in = self.d.n
        self.d.to_act = (seat + 1) % self.d.n

    cdef void bid(self, int seat, int action):
        cdef int i, p, count = 0, best = -1, distance, n = self.d.n
        if action == PASS:  # passing is final (A8)
            for i in range(self.d.nstill_in):
                if self.d.still_in[i] != seat:
                    self.d.still_in[count] = self.d.still_in[i]
                    count += 1
            self.d.nstill_in = count
        else:
            self.d.high_bid = action - BID_BASE + 1
            self.d.high_bidder = seat
        if self.d.nstill_in == 1:  # flow.pay_winner
            self.d.coins[self.d.high_bidder] -= self.d.high_bid
            self.d.centre += self.d.high_bid
            self.d.to_act = NO_SEAT
            self.d.phase = TAKE
            return
        # The next seat clockwise that is still in.
        for i in range(self.d.nstill_in):
            p = self.d.still_in[i]
            distance = (p - seat - 1 + n) % n
            if best < 0 or distance < (best - seat - 1 + n) % n:
                best = p
        self.d.to_act = best

    cdef void take(self, int seat, int action):
        cdef int kind, slot, before
        if action == END_TAKE:
            self.d.phase = BOX
            return
        kind = action - PLACE_BASE
        self.d.ndisplay = remove_first(self.d.display, self.d.ndisplay, kind)
        slot = seat * NUM_COLOURS + kind // 10
        before = expedition_score(self.d.wagers[slot], self.d.numbers[slot], self.d.nnumbers[slot])
        if kind % 10 == 0:
            self.d.wagers[slot] += 1
        else:
            self.d.numbers[slot][self.d.nnumbers[slot]] = kind % 10 + 1
            self.d.nnumbers[slot] += 1
        self.d.points[seat] += (
            expedition_score(self.d.wagers[slot], self.d.numbers[slot], self.d.nnumbers[slot]) - before)

    cdef void box_card(self, int action):
        cdef int kind
        if action != SKIP_BOX:
            kind = action - BOX_BASE
            self.d.ndisplay = remove_first(self.d.display, self.d.ndisplay, kind)
            self.d.box[self.d.nbox] = kind
            self.d.nbox += 1
        self.d.phase = REVEAL  # the winner's compulsory reveal
