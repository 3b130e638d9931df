# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Gang of Dice's State in C: the compiled engine's, when scripts/build_engine.py built this module.

The Python sources (state.py, flow.py, queries.py, contract.py) are the reference; this is the
same rules over one C struct of fixed arrays, so that a die (most nodes of a game are dice) costs
a struct copy and an add instead of a clone of 23 Python fields and new tuples (issue 36: mypyc had
reached its plateau at 0.75-0.80× OpenSpiel's C++ hearts). tests/engine/gang_of_dice/test_c_state.py
plays it against the reference node by node, every option; every other Gang of Dice test runs on it
when the compiled engine does.

In C: what a playout asks (`kind`, `acting_players`, `legal_actions`, `apply`, `apply_chance`, the
chance draw `_sample_chance`, `returns`) and the observation, which a match builds at every
decision. Everything else (labels, visibility, `chance_outcomes`, `ranks`, the speed hooks, the
fields by name) is the reference state's: `reference()` builds it once per state and
`__getattr__` hands it what this class does not define. An argument the fast path does not take
(an illegal action, a bad seat, a mapping that is not a dict) goes to the reference too, which
raises its own error or answers; so errors read exactly as the reference's.
"""

from engine.core import NodeKind
from engine.gang_of_dice.components import CARDS
from engine.gang_of_dice.contract import GangOfDiceState
from engine.gang_of_dice.observe import round_json
from engine.gang_of_dice.phases import PHASE_KINDS, PHASE_NAMES
from engine.gang_of_dice.phases import STATUS_NAMES as STATUS
from engine.gang_of_dice.state import FIELDS, GangOfDiceData

# sizes and action ids (actions.py), phases (phases.py), a seat's status, the cards' predicates
cdef enum:
    MAX_SEATS = 4
    ROUNDS = 12
    NUM_CARDS = 18
    BRIGHT_ROUNDS = 9  # components.BRIGHT_ROUNDS: two_deck plays cards 1-12 (bright), then 13-18
    LAST_BRIGHT = 12
    STAKE_BASE = 2
    PICK_BASE = 164
    PICK_STRIDE = 163
    CARD = 0
    STAKE = 1
    DECIDE = 2
    PICK = 3
    ROLL = 4
    OVER = 5
    WAITING = 0
    VALID = 1
    BUSTED = 2
    OUT = 3
    SUM_AT_LEAST = 0
    RUN = 1
    ODD_AT_LEAST = 2
    DISTINCT_AT_LEAST = 3
    SAME_AT_LEAST = 4
    VALUE_AT_LEAST = 5
    ANY_OF = 6
    ROTATE = 0  # start rules
    WINNER_STARTS = 1
    FIXED = 2

START_RULES = ("rotate", "winner_starts", "fixed")

# components.CARD_TABLE in card-number order 1..18: predicate, parameter (k; the value of
# VALUE_AT_LEAST; a bit set of face values for ANY_OF), VALUE_AT_LEAST's count, yellow or black.
cdef int CARD_PREDICATE[18]
cdef int CARD_PARAM[18]
cdef int CARD_COUNT[18]
cdef bint CARD_YELLOW[18]
CARD_PREDICATE[:] = [0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 6, 6, 0, 0, 2, 4, 5, 6]
CARD_PARAM[:] = [7, 10, 11, 2, 3, 1, 2, 2, 3, 2, (1 << 4) | (1 << 5), (1 << 3) | (1 << 4) | (1 << 5),
                 10, 13, 3, 2, 5, 1 << 1]
CARD_COUNT[:] = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0]
CARD_YELLOW[:] = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1]
cdef int FACE_ORDER[6]  # components.FACES: the re-roll choice walks 1..5, then G (0)
FACE_ORDER[:] = [1, 2, 3, 4, 5, 0]
cdef int FACE_POSITION[6]  # FACES.index(face)
FACE_POSITION[:] = [5, 0, 1, 2, 3, 4]

KINDS = tuple(PHASE_KINDS)
PHASES = tuple(PHASE_NAMES)
STATUS_NAMES = tuple(STATUS)
CHANCE = NodeKind.CHANCE
DECISION = NodeKind.DECISION

# The running sums engine.core.uniform_sums(n) holds: the same float additions in the same order,
# so that a seeded draw picks what engine.core.sample_chance picks from the reference.
cdef double UNIFORM_SUMS[19][18]
cdef double DIE_SUMS[6]
cdef int _n, _i
cdef double _total
for _n in range(1, NUM_CARDS + 1):
    _total = 0.0
    for _i in range(_n):
        _total += 1.0 / _n
        UNIFORM_SUMS[_n][_i] = _total
_total = 0.0
for _i in range(6):
    _total += 1.0 / 6
    DIE_SUMS[_i] = _total


cdef struct Data:
    int n, start_pool, two_deck, g_distinct, start_rule
    int phase, round, ncards, pot, start_seat, norder, turn
    int cur_rolls, pick_face, to_roll, has_picked
    int cards[ROUNDS]
    int pools[MAX_SEATS]
    int active[MAX_SEATS]
    int order[MAX_SEATS]
    int stakes[MAX_SEATS]
    int faces[MAX_SEATS][6]
    int has_faces[MAX_SEATS]
    int rolls[MAX_SEATS]
    int status[MAX_SEATS]
    int cur[6]
    int picked[6]


cdef inline int score(const int* f):
    return f[1] + 2 * f[2] + 3 * f[3] + 4 * f[4] + 5 * f[5]


cdef bint triggered(int card, const int* f, bint g_distinct):
    """components.triggered for card number `card`."""
    cdef int i = card - 1, p = CARD_PARAM[card - 1], v, k, hits
    cdef int kind = CARD_PREDICATE[i]
    if kind == SUM_AT_LEAST:
        return score(f) >= p
    if kind == RUN:  # no wrap-around, G next to nothing
        for v in range(1, 7 - p):
            hits = 1
            for k in range(p):
                if not f[v + k]:
                    hits = 0
                    break
            if hits:
                return True
        return False
    if kind == ODD_AT_LEAST:
        return f[1] + f[3] + f[5] >= p
    if kind == DISTINCT_AT_LEAST:
        hits = f[0] if g_distinct else 0
        for v in range(1, 6):
            if f[v]:
                hits += 1
        return hits >= p
    if kind == SAME_AT_LEAST:
        for v in range(1, 6):
            if f[v] >= p:
                return True
        return False
    if kind == VALUE_AT_LEAST:
        return f[p] >= CARD_COUNT[i]
    for v in range(6):  # ANY_OF
        if (p >> v) & 1 and f[v]:
            return True
    return False


cdef tuple six(const int* f):
    return (f[0], f[1], f[2], f[3], f[4], f[5])


cdef tuple ints(const int* values, int n):
    return tuple([values[i] for i in range(n)])


cdef void set_six(int* target, tuple values):
    cdef int i
    for i in range(6):
        target[i] = values[i]


cdef void set_ints(int* target, tuple values):
    cdef int i
    for i in range(len(values)):
        target[i] = values[i]


def rebuild(cfg, key):
    """A state from its config and `key()` (pickle's way back)."""
    cdef GangOfDiceCState s = GangOfDiceCState.__new__(GangOfDiceCState)
    s.configure(cfg)
    s.set_key(key)
    return s


def state_of(reference):
    """The C state of the position a reference state (GangOfDiceState) holds."""
    key = reference._key()
    return rebuild(key[0], key[1:])


cdef class GangOfDiceCState:
    """One position of a game of Gang of Dice; a value: a transition returns a new state."""

    cdef Data d
    cdef readonly object kind
    cdef readonly int num_players
    cdef readonly object cfg
    cdef tuple log, history
    cdef object ref  # reference(), once asked

    @staticmethod
    def initial(cfg):
        """GangOfDiceState.initial(cfg): round 1 about to reveal its card."""
        cdef GangOfDiceCState s = GangOfDiceCState.__new__(GangOfDiceCState)
        s.configure(cfg)
        for p in range(s.d.n):
            s.d.pools[p] = s.d.start_pool
            s.d.active[p] = 1
        s.history = ()
        s.begin_round(1)
        s.kind = KINDS[s.d.phase]
        return s

    @staticmethod
    def from_reference(reference):
        """The C state of the position a reference state (GangOfDiceState) holds."""
        return state_of(reference)

    cdef void configure(self, cfg):
        self.cfg = cfg
        self.num_players = self.d.n = cfg.num_players
        self.d.start_pool = cfg.start_pool
        self.d.two_deck = cfg.deck_mode == "two_deck"
        self.d.g_distinct = cfg.g_distinct
        self.d.start_rule = START_RULES.index(cfg.start_rule)

    cdef GangOfDiceCState copy(self):
        cdef GangOfDiceCState s = GangOfDiceCState.__new__(GangOfDiceCState)
        s.d = self.d
        s.num_players = self.num_players
        s.cfg = self.cfg
        s.log = self.log
        s.history = self.history
        return s

    # -- the reference, for everything not written here ---------------------------------------

    def reference(self):
        """This position as the reference's GangOfDiceState (built once)."""
        if self.ref is None:
            ref = GangOfDiceState.__new__(GangOfDiceState)
            for name, value in zip(FIELDS, (self.cfg,) + self.key()):
                setattr(ref, name, value)
            ref.kind = self.kind
            self.ref = ref
        return self.ref

    def __getattr__(self, name):
        return getattr(self.reference(), name)

    def key(self):
        """The reference's `_key()` without its config: every field, as the reference holds it."""
        faces = tuple([six(self.d.faces[p]) if self.d.has_faces[p] else None for p in range(self.d.n)])
        return (self.d.n, self.d.phase, self.d.round, ints(self.d.cards, self.d.ncards),
                ints(self.d.pools, self.d.n), tuple([bool(self.d.active[p]) for p in range(self.d.n)]),
                self.d.pot, self.d.start_seat, ints(self.d.order, self.d.norder), self.d.turn,
                ints(self.d.stakes, self.d.n), faces, ints(self.d.rolls, self.d.n),
                ints(self.d.status, self.d.n), six(self.d.cur), self.d.cur_rolls,
                six(self.d.picked) if self.d.has_picked else None, self.d.pick_face,
                self.d.to_roll, self.log, self.history)

    cdef void set_key(self, tuple key):
        (_, self.d.phase, self.d.round, cards, pools, active, self.d.pot, self.d.start_seat, order,
         self.d.turn, stakes, faces, rolls, status, cur, self.d.cur_rolls, picked,
         self.d.pick_face, self.d.to_roll, self.log, self.history) = key
        self.d.ncards, self.d.norder = len(cards), len(order)
        set_ints(self.d.cards, cards)
        set_ints(self.d.pools, pools)
        set_ints(self.d.active, tuple([int(a) for a in active]))
        set_ints(self.d.order, order)
        set_ints(self.d.stakes, stakes)
        set_ints(self.d.rolls, rolls)
        set_ints(self.d.status, status)
        for p in range(self.d.n):
            self.d.has_faces[p] = faces[p] is not None
            if faces[p] is not None:
                set_six(self.d.faces[p], faces[p])
        set_six(self.d.cur, cur)
        self.d.has_picked = picked is not None
        if picked is not None:
            set_six(self.d.picked, picked)
        self.kind = KINDS[self.d.phase]

    def __eq__(self, other):
        if isinstance(other, GangOfDiceCState):
            return self.cfg == other.cfg and self.key() == other.key()
        if isinstance(other, GangOfDiceData):
            return self.reference() == other
        return NotImplemented

    def __hash__(self):
        return hash((self.cfg,) + self.key())  # the reference's: hash(_key())

    def __reduce__(self):
        return rebuild, (self.cfg, self.key())

    def __repr__(self):
        return repr(self.reference())

    # -- what a playout asks -----------------------------------------------------------------

    def acting_players(self):
        if self.kind is not DECISION:
            return ()
        return (self.d.order[self.d.turn],)

    def legal_actions(self, seat):
        cdef int low, high
        if not (type(seat) is int and 0 <= seat < self.d.n):
            return self.reference().legal_actions(seat)  # its error
        if self.kind is not DECISION or seat != self.d.order[self.d.turn]:
            return []
        self.legal_range(&low, &high)
        return list(range(low, high))

    cdef void legal_range(self, int* low, int* high):
        cdef int face, base, f, last = -1, any_picked = 0
        if self.d.phase == STAKE:
            low[0], high[0] = STAKE_BASE, STAKE_BASE + self.d.pools[self.d.order[self.d.turn]]
            return
        if self.d.phase == DECIDE:
            low[0], high[0] = 0, 2
            return
        face = self.d.pick_face
        for f in range(6):
            if self.d.cur[FACE_ORDER[f]]:
                last = FACE_ORDER[f]
            if self.d.picked[f]:
                any_picked = 1
        # The re-roll set may not be empty: at the last face shown, 0 only once something is picked.
        base = PICK_BASE + face * PICK_STRIDE
        low[0] = base + (1 if face == last and not any_picked else 0)
        high[0] = base + self.d.cur[face] + 1

    def apply(self, actions):
        cdef int low, high, seat, action, f
        if self.kind is not DECISION or type(actions) is not dict or len(actions) != 1:
            return self.by_reference_apply(actions)
        seat = self.d.order[self.d.turn]
        value = actions.get(seat)
        if type(value) is not int:
            return self.by_reference_apply(actions)
        self.legal_range(&low, &high)
        if not low <= value < high:
            return self.by_reference_apply(actions)
        action = value
        cdef GangOfDiceCState s = self.copy()
        if self.d.phase == STAKE:
            s.stake(action - STAKE_BASE + 1)
        elif self.d.phase == DECIDE:
            if action == 0:
                s.end_turn()
            else:  # REROLL: only offered with dice on the table
                for f in range(6):
                    s.d.picked[f] = 0
                s.d.has_picked = 1
                s.d.pick_face = s.next_face(-1)
                s.d.phase = PICK
        else:
            s.pick(action - (PICK_BASE + self.d.pick_face * PICK_STRIDE))
        s.kind = KINDS[s.d.phase]
        return s

    def by_reference_apply(self, actions):
        """What the reference's `apply` says: its error, or (a mapping that is not a dict, a bool
        for an int) its next state, as a C state."""
        return state_of(self.reference().apply(actions))

    def _sample_chance(self, rng):
        """engine.core.sample_chance's draw: one rng.random() against the running sums."""
        cdef int count, lo, hi, mid
        cdef const double* sums
        cdef int left[NUM_CARDS]
        if self.kind is not CHANCE:
            self.reference()._require(CHANCE, "chance_outcomes")
        cdef double x = rng.random()
        if self.d.phase == ROLL:
            count, sums = 6, DIE_SUMS
        else:
            count = self.cards_left(left)
            sums = UNIFORM_SUMS[count]
        x *= sums[count - 1]
        lo, hi = 0, count - 1  # bisect_right(sums, x, 0, count - 1)
        while lo < hi:
            mid = (lo + hi) // 2
            if x < sums[mid]:
                hi = mid
            else:
                lo = mid + 1
        return lo if self.d.phase == ROLL else left[lo]

    cdef int cards_left(self, int* left):
        """queries.cards_left: this round's pile less the cards revealed, in card order."""
        cdef int c, j, count = 0, seen, first = 1, last = NUM_CARDS
        if self.d.two_deck:
            if self.d.round <= BRIGHT_ROUNDS:
                last = LAST_BRIGHT
            else:
                first = LAST_BRIGHT + 1
        for c in range(first, last + 1):
            seen = 0
            for j in range(self.d.ncards):
                if self.d.cards[j] == c:
                    seen = 1
                    break
            if not seen:
                left[count] = c
                count += 1
        return count

    def apply_chance(self, outcome):
        cdef int left[NUM_CARDS]
        cdef int count, i, o, found = 0
        if self.kind is not CHANCE or type(outcome) is not int:
            return state_of(self.reference().apply_chance(outcome))
        if self.d.phase == ROLL:
            found = 0 <= outcome < 6
        elif 0 < outcome <= NUM_CARDS:
            count = self.cards_left(left)
            for i in range(count):
                if left[i] == outcome:
                    found = 1
        if not found:
            return state_of(self.reference().apply_chance(outcome))
        o = outcome
        cdef GangOfDiceCState s = self.copy()
        if self.d.phase == CARD:
            s.d.cards[s.d.ncards] = o
            s.d.ncards += 1
            s.d.phase = STAKE
            s.kind = DECISION
            return s
        # Most nodes of a game are single dice: one not the last of its roll keeps the phase.
        s.d.cur[o] += 1
        s.d.to_roll -= 1
        if s.d.to_roll == 0:
            s.roll_landed()
            s.kind = KINDS[s.d.phase]
        else:
            s.kind = CHANCE
        return s

    def returns(self):
        if self.d.phase != OVER:
            return self.reference().returns()  # its error
        return [float(self.d.pools[p]) for p in range(self.d.n)]

    def resample(self, known_to, rng):
        return state_of(self.reference().resample(known_to, rng))

    # -- the observation (observe.py), at every decision of a match ---------------------------

    def observation(self, seat):
        if not (type(seat) is int and 0 <= seat < self.d.n):
            return self.reference().observation(seat)  # its error
        cdef int actor = self.d.order[self.d.turn] if STAKE <= self.d.phase <= ROLL else -1
        cdef int p, leader
        n = self.d.n
        card = CARDS[self.d.cards[self.d.ncards - 1] - 1] if self.d.ncards == self.d.round else None
        if not self.cfg.hide_pools or self.d.phase == OVER:
            scores = [self.d.pools[p] for p in range(n)]
        else:
            scores = [self.d.pools[p] if p == seat else None for p in range(n)]
        faces = []
        for p in range(n):
            if p == actor and self.d.phase != STAKE:
                faces.append(list(six(self.d.cur)))
            else:
                faces.append(list(six(self.d.faces[p])) if self.d.has_faces[p] else None)
        leader = self.winner() if self.d.phase != CARD else -1
        return {
            "seat": seat,
            "phase": PHASES[self.d.phase],
            "round": self.d.round,
            "rounds": ROUNDS,
            "options": dict(self.cfg.options),
            "card": card.as_json() if card is not None else None,
            "cards_revealed": [CARDS[self.d.cards[p] - 1].id for p in range(self.d.ncards)],
            "scores": scores,
            "active": [bool(self.d.active[p]) for p in range(n)],
            "pot": self.d.pot,
            "start_player": self.d.start_seat,
            "turn_order": [self.d.order[p] for p in range(self.d.norder)],
            "to_move": actor if actor >= 0 else None,
            "stakes": [self.d.stakes[p] for p in range(n)],
            "faces": faces,
            "rolls": [self.d.cur_rolls if p == actor else self.d.rolls[p] for p in range(n)],
            "status": ["rolling" if p == actor else STATUS_NAMES[self.d.status[p]] for p in range(n)],
            "leader": None if leader < 0 else {"seat": leader, "score": score(self.d.faces[leader]),
                                                "dice": self.d.stakes[leader]},
            "picked": list(six(self.d.picked)) if self.d.has_picked else None,
            "pick_face": self.d.pick_face if self.d.phase == PICK else None,
            "dice_to_roll": self.d.to_roll if self.d.phase == ROLL else 0,
            "log": [{"seat": s, "roll": r, "rerolled": list(q) if q is not None else None,
                     "faces": list(f)} for s, r, q, f in self.log],
            "history": [round_json(h) for h in self.history],
        }

    # -- the flow (flow.py), on a fresh copy -------------------------------------------------

    cdef int next_face(self, int after):
        """queries.next_face: the next face (FACES order) after position `after` showing a die."""
        cdef int i
        for i in range(after + 1, 6):
            if self.d.cur[FACE_ORDER[i]]:
                return FACE_ORDER[i]
        return -1

    cdef void stake(self, int n):
        cdef int seat = self.d.order[self.d.turn], f
        self.d.pools[seat] -= n
        self.d.stakes[seat] = n
        for f in range(6):
            self.d.cur[f] = 0
        self.d.cur_rolls, self.d.to_roll, self.d.phase = 0, n, ROLL

    cdef void pick(self, int k):
        cdef int f, total = 0
        self.d.picked[self.d.pick_face] = k
        cdef int face = self.next_face(FACE_POSITION[self.d.pick_face])
        if face >= 0:
            self.d.pick_face = face
            return
        for f in range(6):
            self.d.cur[f] -= self.d.picked[f]
            total += self.d.picked[f]
        self.d.to_roll, self.d.pick_face, self.d.phase = total, 0, ROLL

    cdef void roll_landed(self):
        """All dice of a roll are down: log it, then the yellow check (rules §2.3)."""
        cdef int seat = self.d.order[self.d.turn], f
        cdef int card = self.d.cards[self.d.ncards - 1]
        self.d.cur_rolls += 1
        picked = six(self.d.picked) if self.d.has_picked else None
        self.log = self.log + ((seat, self.d.cur_rolls, picked, six(self.d.cur)),)
        self.d.has_picked = 0
        for f in range(6):
            self.d.picked[f] = 0
        if CARD_YELLOW[card - 1] and triggered(card, self.d.cur, self.d.g_distinct):
            self.close_turn(BUSTED)
        elif self.d.cur_rolls == 3:
            self.end_turn()
        else:
            self.d.phase = DECIDE

    cdef void end_turn(self):
        """STOP or the last re-roll: the black check on the final faces (rules §2.3 T3)."""
        cdef int card = self.d.cards[self.d.ncards - 1]
        cdef bint bust = not CARD_YELLOW[card - 1] and triggered(card, self.d.cur, self.d.g_distinct)
        self.close_turn(BUSTED if bust else VALID)

    cdef void close_turn(self, int result):
        cdef int seat = self.d.order[self.d.turn], f
        for f in range(6):
            self.d.faces[seat][f] = self.d.cur[f]
            self.d.cur[f] = 0
        self.d.has_faces[seat] = 1
        self.d.rolls[seat] = self.d.cur_rolls
        self.d.status[seat] = result
        self.d.cur_rolls = 0
        self.d.turn += 1
        if self.d.turn < self.d.norder:
            self.d.phase = STAKE
        else:
            self.resolve_round()

    cdef int winner(self):
        """queries.winner: the best VALID seat by score, then dice staked, then turn order; -1 for none."""
        cdef int i, seat, best = -1, best_score = 0, best_stake = 0, sc
        for i in range(self.d.norder):
            seat = self.d.order[i]
            if self.d.status[seat] != VALID:
                continue
            sc = score(self.d.faces[seat])
            if best < 0 or sc > best_score or (sc == best_score and self.d.stakes[seat] > best_stake):
                best, best_score, best_stake = seat, sc, self.d.stakes[seat]
        return best

    cdef void resolve_round(self):
        cdef int p, table = self.d.pot, winner, active_left = 0, discarded
        for p in range(self.d.n):
            table += self.d.stakes[p]
        winner = self.winner()
        if winner >= 0:
            self.d.pools[winner] += table
            self.d.pot = 0
        else:
            self.d.pot = table
        out = []
        for p in range(self.d.n):
            if self.d.active[p] and self.d.pools[p] == 0:
                out.append(p)
                self.d.active[p] = 0
            active_left += self.d.active[p]
        cdef bint over = self.d.round == ROUNDS or active_left <= 1
        discarded = self.d.pot if over else 0  # nobody owns dice left on the table at the end
        self.history = self.history + (self.summary(winner, table, out, discarded),)
        if over:
            self.d.pot, self.d.phase = 0, OVER
            return
        self.d.start_seat = self.next_start(winner)
        self.begin_round(self.d.round + 1)

    cdef tuple summary(self, int winner, int table, list out, int discarded):
        """flow.summary: the public record of the round just resolved."""
        faces = tuple([six(self.d.faces[p]) if self.d.has_faces[p] else None for p in range(self.d.n)])
        return (
            ("round", self.d.round), ("card", CARDS[self.d.cards[self.d.ncards - 1] - 1].id),
            ("start_player", self.d.start_seat), ("turn_order", ints(self.d.order, self.d.norder)),
            ("stakes", ints(self.d.stakes, self.d.n)), ("faces", faces),
            ("rolls", ints(self.d.rolls, self.d.n)),
            ("status", tuple([STATUS_NAMES[self.d.status[p]] for p in range(self.d.n)])),
            ("winner", winner if winner >= 0 else None), ("dice_won", table if winner >= 0 else 0),
            ("carried_over", 0 if winner >= 0 or discarded else self.d.pot),
            ("discarded", discarded), ("eliminated", tuple(out)),
        )

    cdef int next_start(self, int winner):
        if self.d.start_rule == WINNER_STARTS and winner >= 0:
            return winner
        if self.d.start_rule == FIXED:
            return self.first_active_from(0)
        return self.first_active_from(self.d.start_seat + 1)

    cdef int first_active_from(self, int seat):
        cdef int i, n = self.d.n
        for i in range(n):
            if self.d.active[(seat + i) % n]:
                return (seat + i) % n
        return -1

    cdef void begin_round(self, int r):
        cdef int i, p, n = self.d.n
        self.d.round = r
        self.d.pot += 3 if r == 10 else 6 if r == 11 else 9 if r == 12 else 0  # components.BONUS
        self.d.norder = 0
        for i in range(n):
            p = (self.d.start_seat + i) % n
            if self.d.active[p]:
                self.d.order[self.d.norder] = p
                self.d.norder += 1
        self.d.turn = 0
        for p in range(n):
            self.d.stakes[p] = 0
            self.d.has_faces[p] = 0
            self.d.rolls[p] = 0
            self.d.status[p] = WAITING if self.d.active[p] else OUT
        self.log = ()
        self.d.phase = CARD
