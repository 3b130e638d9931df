// Riviera's table in the replay viewer: the dice (golden, reserved, adjusted), each seat's
// status, Start token, Last Chance, score towards the target, column and hand. It draws only
// frame.state: a hand the view may not see is drawn as card backs (the observation gives its size).
"use strict";
(() => {
  // Okabe–Ito colours; every card and die also carries its colour letter.
  const COLOURS = { R: ["red", "#D55E00"], G: ["green", "#009E73"], P: ["purple", "#CC79A7"],
                    B: ["blue", "#0072B2"], O: ["orange", "#E69F00"] };
  const LETTERS = "RGPBO";
  const STARS = [2, 2, 2, 1, 1, 1, 1, 2, 2, 2, 3, 5];  // per value 1..12 (rules §1.2)
  const POWERS = { 1: "bonus card", 2: "reserve die", 9: "die ±1", 10: "swap 2", 11: "golden die" };
  const PHASES = {
    setup: "setting up", deal: "dealing", roll: "rolling the dice", adjust_dice: "card 9: adjusting a die",
    choose: "everyone IN chooses a card", bonus_choose: "card 1: bonus cards", powers: "powers (cards 2, 10, 11)",
    swap_give: "card 10: giving cards", swap_pick: "card 10: taking cards", fallback_discard: "card 10: discarding",
    fallback_draw: "card 10: drawing", stop_or_more: "stop or more?", game_over: "game over",
  };

  const letterOf = (card) => LETTERS[Math.floor(card / 12)];
  const valueOf = (card) => (card % 12) + 1;
  const nameOf = (card) => `${letterOf(card)}${valueOf(card)}`;
  const dieName = (name) => (name === "Au" ? "golden die" : `${COLOURS[name] ? COLOURS[name][0] : esc(name)} die`);
  const seatTag = (seat) => `<span class="seat-dot seat-${seat}"></span>seat ${seat}`;
  const seatList = (seats) => seats.map(seatTag).join(", ");

  function card(id, extra = "") {
    const letter = letterOf(id), value = valueOf(id), stars = STARS[value - 1];
    const power = POWERS[value] ? `<i class="power">${POWERS[value]}</i>` : "";
    const title = `${COLOURS[letter][0]} ${value}, ${stars} star${stars > 1 ? "s" : ""}${POWERS[value] ? ", power: " + POWERS[value] : ""}`;
    return `<span class="card c-${letter} ${extra}" data-card="${nameOf(id)}" title="${title}">` +
      `<b>${letter}${value}</b><span class="stars">${"★".repeat(stars)}</span>${power}</span>`;
  }

  const back = () => '<span class="card back" title="a card face down"></span>';

  function die(name, value, marks) {
    const gold = name === "Au";
    const fill = gold ? "#F0E442" : COLOURS[name][1];
    const face = value ? ` data-face="${value}"` : "";
    const pips = value ? ArenaGames.pips(value, gold ? "#161b26" : "#fff") : '<text x="15" y="20" text-anchor="middle" font-size="13" fill="#fff">?</text>';
    const label = dieName(name);
    return `<figure class="rv-die ${marks.classes}"><svg class="die${gold ? " gold" : ""}" data-die="${esc(name)}"${face} viewBox="0 0 30 30" role="img" aria-label="${label}: ${value || "not rolled"}">` +
      `<rect x="1" y="1" width="28" height="28" rx="6" fill="${fill}" stroke="#161b26" stroke-width="${marks.classes ? 2.5 : 1}"/>${pips}</svg>` +
      `<figcaption><b>${name}</b>${value ? " " + value : ""}${marks.text}</figcaption></figure>`;
  }

  // What marks a die: reserved for some seats (card 2), turned by a card 9 this turn.
  function dieMarks(s, name) {
    const reserved = (s.reserved_by || {})[name] || [];
    const adjusted = (s.events || []).filter((e) => e.type === "adjust" && e.die === name);
    const modified = (s.modified_dice || []).includes(name);
    const classes = [reserved.length ? "reserved" : "", modified ? "modified" : ""].filter(Boolean).join(" ");
    let text = "";
    if (reserved.length) text += `<span class="mark">reserved for ${seatList(reserved)}</span>`;
    if (modified) text += `<span class="mark">card 9: ${adjusted.map((e) => (e.delta > 0 ? "+1" : "−1")).join(" ") || "turned"}</span>`;
    return { classes, text };
  }

  function dice(s) {
    const coloured = (s.colours || []).map((c) => die(c, (s.dice || {})[c], dieMarks(s, c)));
    const gold = s.gold_in_roll ? die("Au", s.gold, dieMarks(s, "Au"))
      : '<figure class="rv-die off"><span class="gold-off" title="the golden die is rolled only after a card 11 switches it on">Au</span><figcaption>golden die off</figcaption></figure>';
    return `<div class="rv-dice">${coloured.join("")}${gold}</div>`;
  }

  function pending(s) {
    const p = s.pending || {}, parts = [];
    if ((p.gold || []).length) parts.push(`golden die (card 11 of ${seatList(p.gold)})`);
    Object.entries(p.reservations || {}).forEach(([c, seats]) => {
      if (seats.length) parts.push(`${esc(COLOURS[c] ? COLOURS[c][0] : c)} die reserved for ${seatList(seats)}`);
    });
    if ((p.adjusters || []).length) parts.push(`card 9 of ${seatList(p.adjusters)} may turn a die`);
    return parts.length ? `<p class="rv-pending"><b>Next roll:</b> ${parts.join("; ")}</p>` : "";
  }

  function header(s) {
    const removed = s.removed_colour ? ` · ${esc(COLOURS[s.removed_colour][0])} (${esc(s.removed_colour)}) left the game` : "";
    return `<div class="rv-head"><span><b>Round ${Number(s.round)}</b> · turn ${Number(s.turn)} · ${esc(PHASES[s.phase] || s.phase)}</span>` +
      `<span>first to <b>${Number(s.winning_score)}★</b>${removed}</span>` +
      `<span class="pile">${back()} draw pile ${Number(s.draw_pile_size ?? 0)} · discards ${Number(s.discard_size ?? 0)}</span></div>`;
  }

  function power(s) {
    const p = s.power;
    if (!p) return "";
    const target = p.target !== null && p.target !== undefined ? `: swap ${Number(p.count)} with ${seatTag(p.target)}` : "";
    const picked = (p.selected || []).length ? ` · chosen: ${p.selected.map((c) => card(c, "small")).join("")}` : "";
    return `<p class="rv-power">${seatTag(p.seat)} settles ${card(p.card, "small")}${target}${picked}</p>`;
  }

  const STATUS = { IN: "IN", STOPPED: "STOPPED", CRASHED: "CRASHED" };

  // The cards of a hand this view may see face up: its own hand, or cards it learnt in a swap.
  function hand(s, seat) {
    const size = Number((s.hand_sizes || [])[seat] ?? 0);
    if (s.seat === seat) return (s.hand || []).map((c) => card(c)).join("");
    const known = ((s.known_hands || [])[seat] || []).slice(0, size);
    return known.map((c) => card(c, "known")).join("") + back().repeat(size - known.length);
  }

  function knownNote(s, seat) {
    const known = s.seat === seat ? 0 : ((s.known_hands || [])[seat] || []).length;
    return known ? ` (${known} seen in a card 10 swap, dashed)` : "";
  }

  function column(s, seat) {
    const cards = (s.columns || [])[seat] || [];
    const fresh = new Set((s.played_this_turn || [])[seat] || []);
    const drawn = cards.map((c) => card(c, fresh.has(c) ? "new" : "")).join("");
    return drawn || '<span class="muted">no card played this round</span>';
  }

  function scoreBar(s, seat) {
    const target = Number(s.winning_score) || 40, score = Number(s.scores[seat]);
    // A crashed column scores nothing; at the game's end the columns are banked already.
    const banked = s.status[seat] === "CRASHED" || s.phase === "game_over";
    const inColumn = banked ? 0 : Number((s.column_stars || [])[seat] || 0);
    const pct = (x) => Math.max(0, Math.min(100, (x / target) * 100));
    return `<div class="rv-score" title="${score}★ banked, ${inColumn}★ in the column, target ${target}★">` +
      `<span class="bar"><span class="banked" style="width:${pct(score)}%"></span><span class="column-stars" style="width:${pct(inColumn)}%"></span></span>` +
      `<b>${score}★</b> <span class="muted">+ ${inColumn}★ in column / ${target}★</span></div>`;
  }

  function badges(s, seat) {
    const status = STATUS[s.status[seat]] || "IN";
    let out = `<span class="rv-status st-${status}">${status}</span>`;
    if (s.holder === seat) out += '<span class="rv-token" title="holds the Start token">▶ Start</span>';
    const used = (s.last_chance_used || [])[seat];
    out += `<span class="rv-lc${used ? " used" : ""}">${used ? "Last Chance used" : "Last Chance ready"}</span>`;
    if ((s.bonus_eligible || []).includes(seat)) out += '<span class="rv-flag">may play a bonus card</span>';
    if ((s.winners || []).includes(seat)) out += `<span class="rv-flag win">${s.grand_slam ? "Grand Slam!" : "wins"}</span>`;
    return out;
  }

  function seatArea(s, seat, meta, acting) {
    const bot = meta.seats[seat] ? meta.seats[seat].bot : `seat ${seat}`;
    const size = Number((s.hand_sizes || [])[seat] ?? 0);
    return `<section class="rv-seat${acting.includes(seat) ? " acting" : ""}" data-seat="${seat}" data-score="${Number(s.scores[seat])}">` +
      `<header><span class="seat-dot seat-${seat}"></span><b>${seat} · ${esc(bot)}</b>${badges(s, seat)}</header>` +
      scoreBar(s, seat) +
      `<div class="row"><label>column · ${Number((s.column_stars || [])[seat] || 0)}★</label><div class="column">${column(s, seat)}</div></div>` +
      `<div class="row"><label>hand · ${size} card${size === 1 ? "" : "s"}${knownNote(s, seat)}</label><div class="hand">${hand(s, seat) || '<span class="muted">empty</span>'}</div></div></section>`;
  }

  // This turn's public log in words.
  function event(e) {
    const who = seatTag(e.seat);
    const words = {
      play: () => `plays ${card(e.card, "small")}`, bonus: () => `plays a bonus card ${card(e.card, "small")}`,
      bonus_pass: () => "plays no bonus card", last_chance: () => "uses Last Chance", crash: () => "crashes",
      adjust: () => (e.die ? `turns the ${dieName(e.die)} ${e.delta > 0 ? "up" : "down"} one` : "leaves the dice as they are"),
      power: () => `${e.used ? "uses" : "does not use"} the power of ${card(e.card, "small")}`,
      swap: () => `swaps ${Number(e.count)} card(s) with ${seatTag(e.target)}` + swapped(e),
      fallback: () => `discards and draws ${Number(e.count)} card(s)`, stop: () => "stops", more: () => "goes on",
    }[e.type];
    return `<li>${who} ${words ? words() : esc(e.type)}</li>`;
  }

  // The cards of a swap, for the two seats in it (the observation gives them only to those).
  function swapped(e) {
    if (!e.to_target) return "";
    return ` <span class="muted">(${e.to_target.map(nameOf).join(" ")} went to seat ${Number(e.target)}, ${(e.to_swapper || []).map(nameOf).join(" ")} came back)</span>`;
  }

  function events(s) {
    const list = s.events || [];
    return list.length ? `<details class="rv-events" open><summary>This turn</summary><ol>${list.map(event).join("")}</ol></details>` : "";
  }

  function draw(frame, meta) {
    const s = frame.state, acting = frame.acting || [];
    const seats = (s.scores || []).map((_, seat) => seatArea(s, seat, meta, acting)).join("");
    const legend = '<p class="rv-legend">Outlined: played this turn. A card shows its colour letter, value, stars (★) and power.</p>';
    return `<div class="riviera">${header(s)}${dice(s)}${pending(s)}${power(s)}<div class="rv-seats">${seats}</div>${events(s)}${legend}</div>`;
  }

  ArenaGames.register("riviera", { draw });
})();
