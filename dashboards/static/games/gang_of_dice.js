// Gang of Dice's table in the replay viewer: the warning card in words, the rounds with their
// bonus dice, the pot, and each seat's pool, stake, dice (the gangster face drawn), re-rolls and
// result. It draws only frame.state; a hidden pool (hide_pools) is drawn as "?".
"use strict";
(() => {
  const FACE_ORDER = [1, 2, 3, 4, 5, 0];  // face codes, 0 = the gangster G
  const BONUS = { 10: 3, 11: 6, 12: 9 };  // bonus dice added to the pot (rules §2.6)
  const STATUS = { waiting: "waiting", rolling: "rolling", valid: "valid", busted: "BUSTED", out: "out" };
  const PHASES = { card: "revealing the warning card", stake: "staking dice", decide: "stop or re-roll?",
                   pick: "choosing dice to re-roll", roll: "dice rolling", over: "game over" };
  const faceName = (f) => (f === 0 ? "G" : String(f));
  const seatTag = (seat) => `<span class="seat-dot seat-${seat}"></span>seat ${Number(seat)}`;
  const NUMBERS = ["no", "one", "two", "three", "four", "five"];
  const number = (k) => NUMBERS[k] || String(k);
  const plural = (n, one, many) => `${n} ${n === 1 ? one : many}`;

  // The gangster face: a fedora over a face in shadow, with its letter.
  const GANGSTER = '<path d="M6 15 Q15 11 24 15 L21 9 Q15 6 9 9 Z" fill="#161b26"/><rect x="4" y="14" width="22" height="3" rx="1.5" fill="#161b26"/>' +
    '<text x="15" y="27" text-anchor="middle" font-size="9" font-weight="700" fill="#161b26">G</text>';

  function die(face, extra = "") {
    const inside = face === 0 ? GANGSTER : ArenaGames.pips(face);
    const title = face === 0 ? "the gangster (scores 0, matches nothing)" : `a ${face}`;
    return `<svg class="die ${face === 0 ? "gangster " : ""}${extra}" data-face="${faceName(face)}" viewBox="0 0 30 30" role="img" aria-label="${title}">` +
      `<title>${title}</title><rect x="1" y="1" width="28" height="28" rx="6" fill="#fff" stroke="#161b26" stroke-width="1.5"/>${inside}</svg>`;
  }

  // The dice of a seat, face by face; while it picks a re-roll, the chosen dice are marked.
  function dice(counts, picked, asking) {
    if (!counts) return "";
    return FACE_ORDER.map((f) => {
      const n = Number(counts[f] || 0), chosen = picked ? Number(picked[f] || 0) : 0;
      const mark = (i) => [i < chosen ? "picked" : "", asking === f ? "asking" : ""].filter(Boolean).join(" ");
      return Array.from({ length: n }, (_, i) => die(f, mark(i))).join("");
    }).join("");
  }

  const score = (counts) => (counts ? [1, 2, 3, 4, 5].reduce((sum, v) => sum + v * Number(counts[v] || 0), 0) : 0);
  const countDice = (counts) => (counts ? counts.reduce((a, b) => a + Number(b || 0), 0) : 0);

  // What sets the card off, in words (engine/gang_of_dice/components.py: the predicate and its parameter).
  function trigger(card) {
    const k = card.param;
    const anyOf = (vs) => (vs.length === 1 ? `any ${vs[0]}` : `any ${vs.slice(0, -1).join(", ")} or ${vs[vs.length - 1]}`);
    const words = {
      SUM_AT_LEAST: () => `the dice adding up to ${k} or more`,
      RUN: () => (k === 2 ? "two values in a row (like 2 3)" : `${number(k)} values in a row (like 3 4 5)`),
      ODD_AT_LEAST: () => (k === 1 ? "any odd die (1, 3 or 5)" : `${number(k)} or more odd dice (1, 3, 5)`),
      DISTINCT_AT_LEAST: () => `${number(k)} or more different values`,
      SAME_AT_LEAST: () => (k === 2 ? "two dice of the same value (a pair)" : `${number(k)} dice of the same value`),
      VALUE_AT_LEAST: () => `${number(k[1])} or more ${k[0]}s`,
      ANY_OF: () => anyOf(k),
    }[card.predicate];
    return words ? `Busts on ${words()}` : esc(card.predicate);
  }

  function warning(card) {
    if (!card) return '<div class="gd-warning unrevealed"><b>?</b><span>The warning card is not revealed yet.</span></div>';
    const yellow = card.colour === "yellow";
    const kind = yellow ? "Explosive (yellow): checked after every roll and re-roll"
      : "Bomb (black): checked once, on the final dice";
    return `<div class="gd-warning ${yellow ? "yellow" : "black"}" data-card="${esc(card.id)}">` +
      `<span class="art">${esc(card.art).replaceAll("!=", "≠").replace(/ x(\d)$/, " ×$1")}</span><span class="words"><b>${esc(trigger(card))}</b>` +
      `<span>${kind} · G never counts</span><span class="muted">${esc(card.id)}</span></span></div>`;
  }

  function rounds(s) {
    const revealed = s.cards_revealed || [];
    const cells = Array.from({ length: Number(s.rounds) || 12 }, (_, i) => {
      const r = i + 1, now = r === Number(s.round) ? " now" : "";
      const bonus = BONUS[r] ? `<i>+${BONUS[r]} dice</i>` : "";
      return `<span class="gd-round${now}${r < s.round ? " done" : ""}"><b>${r}</b>${esc(revealed[i] || "")}${bonus}</span>`;
    });
    return `<div class="gd-rounds" title="rounds 10, 11 and 12 add 3, 6 and 9 bonus dice to the pot">${cells.join("")}</div>`;
  }

  function header(s) {
    const bonus = BONUS[s.round] ? ` (with ${BONUS[s.round]} bonus dice)` : "";
    return `<div class="gd-head"><span><b>Round ${Number(s.round)} of ${Number(s.rounds)}</b> · ${esc(PHASES[s.phase] || s.phase)}</span>` +
      `<span class="gd-pot">pot <b>${Number(s.pot)}</b> ${Number(s.pot) === 1 ? "die" : "dice"}${bonus}</span></div>`;
  }

  // Dice still in the air (phase "roll"): drawn blank, without a face.
  const landing = (n) => '<span class="die-rolling" title="still rolling"></span>'.repeat(Math.max(0, n));

  function seatDice(s, seat) {
    const mover = s.to_move === seat, picking = mover && s.phase === "pick";
    const drawn = dice((s.faces || [])[seat], picking ? s.picked : null, picking ? s.pick_face : null);
    const flying = mover && s.phase === "roll" ? landing(Number(s.dice_to_roll)) : "";
    return drawn + flying || '<span class="muted">no dice rolled yet</span>';
  }

  function facts(s, seat) {
    const faces = (s.faces || [])[seat], rolls = Number((s.rolls || [])[seat] || 0);
    const stake = Number((s.stakes || [])[seat] || 0);
    const parts = [stake ? `staked <b>${stake}</b>` : "nothing staked yet"];
    if (rolls) parts.push(`re-rolls ${Math.max(0, rolls - 1)} of 2`);
    if (faces) parts.push(`scores <b>${score(faces)}</b>`);
    return parts.join(" · ");
  }

  function badges(s, seat) {
    const status = (s.status || [])[seat] || "waiting";
    let out = `<span class="gd-status st-${esc(status)}">${esc(STATUS[status] || status)}</span>`;
    if (s.start_player === seat) out += '<span class="gd-flag">starts the round</span>';
    if (s.leader && s.leader.seat === seat) out += `<span class="gd-flag lead">${s.phase === "over" ? "won the round" : "leads"}: ${Number(s.leader.score)} with ${plural(Number(s.leader.dice), "die", "dice")}</span>`;
    return out;
  }

  function seatArea(s, seat, meta, acting) {
    const bot = meta.seats[seat] ? meta.seats[seat].bot : `seat ${seat}`;
    const pool = (s.scores || [])[seat];
    const shown = pool === null || pool === undefined ? "?" : Number(pool);
    return `<section class="gd-seat${acting.includes(seat) ? " acting" : ""}${(s.status || [])[seat] === "busted" ? " busted" : ""}" data-seat="${seat}" data-score="${pool === null || pool === undefined ? "" : Number(pool)}">` +
      `<header><span class="seat-dot seat-${seat}"></span><b>${seat} · ${esc(bot)}</b>${badges(s, seat)}` +
      `<span class="gd-pool" title="dice in the pool, not staked">pool <b>${shown}</b></span></header>` +
      `<div class="gd-facts">${facts(s, seat)}</div><div class="gd-dice">${seatDice(s, seat)}</div></section>`;
  }

  // Face counts in words: "3 × 1, 2 × 5, 1 × G".
  const tally = (counts) => FACE_ORDER.filter((f) => Number(counts[f]) > 0).map((f) => `${Number(counts[f])} × ${faceName(f)}`).join(", ");

  // This round's rolls in words: "seat 1, roll 2 (re-rolled 5 5): 1 3 G".
  function rollLog(s) {
    const list = (s.log || []).map((e) => {
      const again = e.rerolled ? ` (the ${tally(e.rerolled)})` : "";
      return `<li>${seatTag(e.seat)}, ${e.roll === 1 ? "first roll" : `re-roll ${Number(e.roll) - 1}${again}`}: <b>${tally(e.faces)}</b></li>`;
    });
    return list.length ? `<details class="gd-log" open><summary>This round's rolls</summary><ol>${list.join("")}</ol></details>` : "";
  }

  function history(s) {
    const rows = (s.history || []).map((h) => `<tr><td>${Number(h.round)}</td><td>${esc(h.card)}</td>` +
      `<td>${h.winner === null ? "everybody busted" : seatTag(h.winner)}</td><td>${Number(h.dice_won)}</td>` +
      `<td>${Number(h.carried_over) || ""}</td><td>${(h.eliminated || []).map(seatTag).join(", ")}</td></tr>`);
    return rows.length ? `<details class="gd-history"><summary>Rounds played</summary><table><tr><th>round</th><th>card</th>` +
      `<th>winner</th><th>dice won</th><th>carried over</th><th>out</th></tr>${rows.join("")}</table></details>` : "";
  }

  function draw(frame, meta) {
    const s = frame.state, acting = frame.acting || [];
    const order = [...(s.turn_order || [])];
    meta.seats.forEach((_, seat) => { if (!order.includes(seat)) order.push(seat); });  // eliminated seats last
    const seats = order.map((seat) => seatArea(s, seat, meta, acting)).join("");
    return `<div class="gang-of-dice">${header(s)}${rounds(s)}${warning(s.card)}<div class="gd-seats">${seats}</div>${rollLog(s)}${history(s)}</div>`;
  }

  ArenaGames.register("gang_of_dice", { draw });
})();
