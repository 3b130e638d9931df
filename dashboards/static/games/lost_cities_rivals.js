// Lost Cities: Rivals, drawn from one view's observation (engine/lost_cities_rivals observe.py):
// the piles, the centre, the display and the box; the auction; each seat's coins, score and five
// expeditions (wagers first, then numbers). Nothing is hidden but the piles' order: a pile is a
// card back with its count. Every colour also shows its letter and a shape (colour-blind safe).
"use strict";

(() => {
  const COLOURS = {  // engine letters R G B Y W; Okabe–Ito fills, a shape per colour
    R: { name: "red", shape: "▲" }, G: { name: "green", shape: "●" }, B: { name: "blue", shape: "≈" },
    Y: { name: "yellow", shape: "■" }, W: { name: "white", shape: "◆" },
  };
  const LETTERS = Object.keys(COLOURS);
  const PILES = 4;
  const seatDot = (seat) => `<span class="seat-dot seat-${Number(seat)}"></span>`;

  // "R7", "R*": one card face up; a number shows its footprints (1 on 2–5, 2 on 6–10: what scores).
  function card(label, extra = "") {
    const letter = label[0], rank = label.slice(1);
    const colour = COLOURS[letter] || { name: "?", shape: "?" };
    const wager = rank === "*";
    const feet = wager ? "wager" : "•".repeat(Number(rank) >= 6 ? 2 : 1);
    const title = `${colour.name} ${wager ? "wager" : rank}`;
    return `<span class="card lcr-card lcr-${esc(letter)}${wager ? " wager" : ""}${extra}" data-card="${esc(label)}" title="${esc(title)}">`
      + `<b>${esc(letter)}${wager ? "" : esc(rank)}</b><i>${colour.shape}</i><small>${feet}</small></span>`;
  }

  const back = (count, what) =>
    `<span class="card back lcr-back" data-count="${Number(count)}" title="${esc(what)}"><b>${Number(count)}</b></span>`;

  function piles(state) {
    const items = [];
    for (let n = 1; n <= PILES; n++) {
      if (n < state.pile) items.push(`<span class="lcr-pile done" title="pile ${n}: used up">${n}</span>`);
      else if (n === state.pile) items.push(`<span class="lcr-pile current">${back(state.pile_cards_left, `pile ${n}: ${state.pile_cards_left} cards left`)}<em>pile ${n}</em></span>`);
      else items.push(`<span class="lcr-pile">${back(20, `pile ${n}: 20 cards, still to come`)}<em>pile ${n}</em></span>`);
    }
    const revealed = Number(state.cards_revealed);
    return `<div class="lcr-piles" data-revealed="${revealed}"><h4>Piles</h4>${items.join("")}`
      + `<span class="lcr-progress" title="${revealed} of 80 cards revealed"><span style="width:${(revealed / 80) * 100}%"></span></span>`
      + `<span class="muted">${revealed} / 80 revealed</span></div>`;
  }

  function row(title, cards, empty) {
    const body = cards.length ? cards.map((c) => card(c)).join("") : `<span class="muted">${empty}</span>`;
    return `<div class="lcr-row"><h4>${title}</h4><div class="lcr-cards">${body}</div></div>`;
  }

  function centre(state) {
    return `<div class="lcr-row lcr-centre"><h4>Centre</h4><span class="coin" data-centre="${Number(state.centre)}">${Number(state.centre)}</span>`
      + `<span class="muted">shared out when a pile runs out</span></div>`;
  }

  // Who leads, at what bid; every seat still in or passed.
  function auction(state, meta) {
    const a = state.auction;
    if (!a) return "";
    const seats = meta.seats.map((s, i) => {
      const status = i === a.high_bidder ? "leads" : a.in.includes(i) ? "in" : "passed";
      return `<span class="lcr-bidder ${status}" data-bidder="${i}">${seatDot(i)}${esc(s.bot)} <b>${status}</b></span>`;
    }).join("");
    return `<div class="lcr-auction" data-high-bid="${Number(a.high_bid)}" data-high-bidder="${Number(a.high_bidder)}">`
      + `<h4>Auction</h4><span>opened by ${seatDot(a.starter)}seat ${Number(a.starter)}</span>`
      + `<span class="lcr-bid">high bid <span class="coin">${Number(a.high_bid)}</span> by ${seatDot(a.high_bidder)}seat ${Number(a.high_bidder)}</span>`
      + `<div class="lcr-bidders">${seats}</div></div>`;
  }

  // One expedition: its wagers (the starting wager marked), then its numbers bottom to top.
  function expedition(letter, exp, starting) {
    const wagers = [];
    for (let k = 0; k < exp.wagers; k++) wagers.push(card(`${letter}*`, k < starting ? " starting" : ""));
    const numbers = exp.numbers.map((n) => card(`${letter}${n}`));
    const started = exp.wagers > 0 || exp.numbers.length > 0;
    const multiplier = started ? `<small class="muted">×${1 + exp.wagers}</small>` : "";
    return `<div class="lcr-exp lcr-${letter}${started ? "" : " unstarted"}" data-colour="${letter}">`
      + `<span class="lcr-exp-head">${letter} ${COLOURS[letter].shape} ${multiplier}</span>${wagers.join("")}${numbers.join("")}</div>`;
  }

  function seat(state, meta, frame, p) {
    const starting = state.starting_wagers[p] || [];
    const acting = frame.acting.includes(p) ? " acting" : "";
    const won = (state.winners || []).includes(p);
    const turn = won ? ' <span class="pill pill-finished">winner</span>'
      : state.turn_player === p && !["deal", "game_over"].includes(state.phase) ? ' <span class="pill">turn</span>' : "";
    const exps = LETTERS.map((c) => expedition(c, state.expeditions[p][c], starting.includes(c) ? 1 : 0)).join("");
    return `<div class="lcr-seat${acting}" data-seat="${p}"><div class="lcr-seat-head">${seatDot(p)}<b>${esc(meta.seats[p].bot)}</b>${turn}`
      + `<span class="coin" data-coins="${Number(state.coins[p])}" title="coins">${Number(state.coins[p])}</span>`
      + `<span class="lcr-score" data-score="${Number(state.scores[p])}">${Number(state.scores[p])} pts</span></div>`
      + `<div class="lcr-exps">${exps}</div></div>`;
  }

  function draw(frame, meta) {
    const s = frame.state;
    const table = `<div class="lcr-table">${piles(s)}${centre(s)}${row("Display", s.display, "empty")}`
      + `${row("Box", s.box, "nothing boxed")}${auction(s, meta)}</div>`;
    const seats = meta.seats.map((_, p) => seat(s, meta, frame, p)).join("");
    return `<div class="lcr" data-phase="${esc(s.phase)}">${table}<div class="lcr-seats">${seats}</div></div>`;
  }

  window.ArenaGames.register("lost_cities_rivals", { draw });
})();
