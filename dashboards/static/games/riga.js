// Riga with the Grand Master tiles, drawn from one view's observation (engine/riga observe.py):
// year and season, the goods rows, the building display (new | old), the decks, the Grand Master
// tiles with their sides and holders; each seat's buildings by city, knights, merchants, goods and
// hand. A hand card the view may not see is a card back: the observation gives its count only.
// Every colour also shows its letter (V T S D R; Cl Gl Wi Gr), so no colour is needed to read it.
"use strict";

(() => {
  const CITIES = { V: "Visby", T: "Tallinn", S: "Stockholm", D: "Danzig", R: "Riga" };
  const GOODS = { cloth: ["Cl", 5], glass: ["Gl", 4], wine: ["Wi", 3], grain: ["Gr", 2] };  // letters, base value
  const SYMBOLS = { knight: ["⚔", "knight"], merchant: ["⚖", "merchant"] };
  // The building cards of engine/riga/components.py (the test compares them): every city shares the
  // template of 12 (name, cost, VP, symbol, benefit); the Factor goods differ by city.
  const TEMPLATE = [
    ["Factor A", 4, 0, null, "factor_a"], ["Factor B", 4, 0, null, "factor_b"], ["Builders' Guild", 5, 0, null, "−2 cost here"],
    ["Harbour Scribe", 5, 0, "merchant", "+1 goods draw"], ["Strongbox", 6, 0, "knight", "credit 4"],
    ["Watchtower", 7, 3, "knight", ""], ["Trading House", 7, 3, "merchant", ""], ["Town Gate", 9, 4, null, ""],
    ["Curtain Wall", 10, 4, "knight", ""], ["Guildhall", 12, 5, "merchant", ""], ["Cathedral", 13, 5, null, ""],
    ["Town Hall", 15, 6, null, ""],
  ];
  const FACTORS = { V: ["glass", "grain"], T: ["cloth", "glass"], S: ["wine", "grain"], D: ["cloth", "wine"] };
  const RIGA = [["Monastery", 10, 4, null, ""], ["School", 6, 0, null, "+1 goods draw"],
                ["Warehouse", 5, 0, null, "+3 hand limit"], ["Exchange Office", 6, 0, null, "refused goods at base"]];
  const CREDIT = 4;  // a Strongbox's one-shot credit in ducats

  function buildCards() {
    const cards = {};
    const add = (code, city, [name, cost, vp, symbol, benefit]) => {
      const factor = { factor_a: 0, factor_b: 1 }[benefit];
      cards[code] = { name: city === "R" ? name : `${CITIES[city]} ${name}`, short: name, cost, vp, symbol,
                      benefit: factor === undefined ? benefit : `+1 ${FACTORS[city][factor]}`,
                      credit: name === "Strongbox" ? CREDIT : 0 };
    };
    for (const city of "VTSD") TEMPLATE.forEach((t, i) => add(`${city}${String(i + 1).padStart(2, "0")}`, city, t));
    RIGA.forEach((t, i) => add(`R${i + 1}`, "R", t));
    return cards;
  }
  const CARDS = buildCards();
  const SIDES = { max: "Max.", first: "1.", p23: "4 / 2", p4: "6 / 4 / 2" };
  const SIDE_RULES = {  // rules §1.5, §4.2, §4.3
    max: "Max.: taken at 2 buildings of the city (3 knights or merchants), stolen by strictly more; holder +4",
    first: "1.: kept for good by the first to reach 3 buildings of the city (4 knights or merchants); holder +4",
    p23: "Money: 4 and 2 VP for the most goods (base value) and unused credits at the end",
    p4: "Money: 6, 4 and 2 VP for the most goods (base value) and unused credits at the end",
  };

  const seatDot = (seat) => `<span class="seat-dot seat-${Number(seat)}"></span>`;
  const repeat = (n, f) => Array.from({ length: Math.max(0, Number(n)) }, f).join("");
  const sum = (counts) => Object.values(counts).reduce((a, b) => a + b, 0);

  // One building card face up: city letter and colour, code, name, cost, VP, symbol, benefit.
  function building(code, extra = "") {
    const c = CARDS[code] || { name: code, cost: "?", vp: "?", symbol: null, benefit: "" };
    const city = code[0];
    const symbol = c.symbol ? `<span class="rg-symbol" title="${SYMBOLS[c.symbol][1]}">${SYMBOLS[c.symbol][0]}</span>` : "";
    return `<span class="card rg-building rg-${esc(city)}${extra}" data-card="${esc(code)}" title="${esc(c.name)}: cost ${c.cost}, ${c.vp} VP${c.benefit ? ", " + esc(c.benefit) : ""}">`
      + `<span class="rg-code">${esc(code)}${symbol}</span><span class="rg-name">${esc(c.short || code)}</span>`
      + `<span class="rg-stats"><span title="cost">${c.cost}¤</span>${c.vp ? `<b title="victory points">${c.vp} VP</b>` : `<i>${esc(c.benefit)}</i>`}</span></span>`;
  }

  const good = (name) => {
    const [letter, base] = GOODS[name] || ["?", "?"];
    return `<span class="card rg-good rg-${esc(name)}" data-card="${esc(name)}" title="${esc(name)}, base value ${base}"><b>${letter}</b><small>${base}</small></span>`;
  };
  const back = (kind, title) => `<span class="card back rg-back rg-back-${kind}" title="${esc(title)}"></span>`;
  const goodsOf = (counts) => Object.keys(GOODS).map((g) => repeat(counts[g] || 0, () => good(g))).join("");
  const stack = (count, kind, title) =>
    `<span class="rg-deck" data-count="${Number(count)}">${back(kind, title)}<b>${Number(count)}</b></span>`;

  function header(s) {
    const queue = s.turn_queue.map((p) => seatDot(p)).join("");
    return `<div class="rg-head"><span class="rg-year" data-year="${Number(s.year)}">Year <b>${Number(s.year)}</b> of ${Number(s.years)}</span>`
      + `<span class="rg-season rg-season-${esc(s.season)}" data-season="${esc(s.season)}">${esc(s.season.replace("_", " "))}</span>`
      + `<span class="muted">${esc(s.phase.replaceAll("_", " "))}</span>`
      + `<span>start player ${seatDot(s.start_player)}${Number(s.start_player)}</span>`
      + (queue ? `<span>to act ${queue}</span>` : "")
      + (s.phase === "build" ? `<span>builds ${Number(s.builds_this_turn)} / 3</span>` : "")
      + (s.discards_left ? `<span>over the hand limit: ${Number(s.discards_left)} to discard</span>` : "") + `</div>`;
  }

  function rows(s) {
    const items = s.rows.map((row, r) => `<div class="rg-row${row.length ? "" : " taken"}" data-row="${r + 1}"><em>row ${r + 1}</em>`
      + (row.length ? row.map(good).join("") : `<span class="muted">taken</span>`) + `</div>`).join("");
    return `<div class="rg-section"><h4>Goods rows</h4><div class="rg-rows">${items || '<span class="muted">none</span>'}</div></div>`;
  }

  function display(s) {
    const part = (codes, label) => `<div class="rg-part"><em>${label}</em>${codes.map((c) => building(c)).join("") || '<span class="muted">empty</span>'}</div>`;
    return `<div class="rg-section"><h4>Buildings on display</h4><div class="rg-display">${part(s.display_new, "new")}`
      + `<span class="rg-separator" title="separation card">➜</span>${part(s.display_old, "old")}</div></div>`;
  }

  function decks(s) {
    const under = s.building_deck_bottom_owners.length
      ? `<span class="muted">under it: ${s.building_deck_bottom_owners.map((p) => seatDot(p)).join("")}</span>` : "";
    const mine = (s.my_cards_under_deck || []).map((c) => building(c, " under")).join("");
    const discard = Object.keys(GOODS).map((g) => `${GOODS[g][0]} ${Number(s.goods_discard[g])}`).join(" · ");
    return `<div class="rg-section rg-decks"><h4>Decks</h4>${stack(s.goods_deck_size, "goods", "goods deck")}<span class="muted">goods</span>`
      + `${stack(s.building_deck_size, "building", "building deck")}<span class="muted">buildings</span>${under}${mine}`
      + `<span class="muted">discarded goods: ${discard}; removed buildings: ${s.removed_buildings.length}</span></div>`;
  }

  function tiles(s) {
    if (!s.tiles.length) return "";
    const items = s.tiles.map((t) => {
      const holder = t.holder >= 0 ? `${seatDot(t.holder)}seat ${Number(t.holder)}` : t.tile === "Money" ? "scored at the end" : "in the supply";
      return `<span class="rg-tile rg-side-${esc(t.side)}" data-tile="${esc(t.tile)}" data-side="${esc(t.side)}" data-holder="${Number(t.holder)}" title="${esc(SIDE_RULES[t.side] || "")}">`
        + `<b>${esc(t.tile)}</b><span class="rg-side">${esc(SIDES[t.side] || t.side)}</span><span class="rg-holder">${holder}</span></span>`;
    }).join("");
    return `<div class="rg-section"><h4>Grand Master</h4><div class="rg-tiles">${items}</div></div>`;
  }

  function pending(s) {
    const b = s.pending_build;
    if (!b) return "";
    const paid = goodsOf(b.paid_goods) + b.paid_credits.map((c) => building(c, " used")).join("");
    return `<div class="rg-section rg-pending"><h4>Building</h4>${building(b.card)}<span>cost ${Number(b.cost)}; paid so far</span>${paid || '<span class="muted">nothing</span>'}</div>`;
  }

  // What `frame.view` may see of seat p's hand: all of it in its own view (and at the end, when
  // every hand is shown), else the publicly known part face up and the rest as card backs.
  function hand(s, p, own) {
    const info = s.players[p];
    const goods = own ? s.hand_goods : info.known_goods;
    const buildings = own ? s.hand_buildings : info.known_buildings;
    const hiddenGoods = info.goods_in_hand - sum(goods), hiddenBuildings = info.buildings_in_hand - buildings.length;
    return `<div class="rg-hand" data-hand="${p}"><em>hand ${info.goods_in_hand + info.buildings_in_hand} / ${Number(info.hand_limit)}</em>`
      + goodsOf(goods) + repeat(hiddenGoods, () => back("goods", "a goods card"))
      + buildings.map((c) => building(c)).join("") + repeat(hiddenBuildings, () => back("building", "a building card")) + `</div>`;
  }

  // The start buildings the active seat chooses from: face up for the chooser only.
  function startChoice(s, p) {
    if (!s.start_choice_size || s.active !== p) return "";
    const shown = s.start_choice || [];
    const cards = shown.length ? shown.map((c) => building(c)).join("") : repeat(s.start_choice_size, () => back("building", "a start building to choose"));
    return `<div class="rg-choice"><em>start buildings to choose from</em>${cards}</div>`;
  }

  // Money as the Money tile counts it: goods at base value plus unused Strongbox credits.
  function money(s, p, own) {
    const info = s.players[p];
    if (info.money !== undefined) return info.money;
    if (!own) return null;
    const goods = Object.keys(GOODS).reduce((total, g) => total + GOODS[g][1] * (s.hand_goods[g] || 0), 0);
    return goods + info.tableau.filter((c) => CARDS[c] && CARDS[c].credit && !info.credits_used.includes(c)).length * CREDIT;
  }

  function tableau(info) {
    return Object.keys(CITIES).map((city) => {
      const built = info.tableau.filter((c) => c[0] === city);
      const count = info.city_counts[CITIES[city]];
      const cards = built.map((c) => building(c, info.credits_used.includes(c) ? " used" : "")).join("");
      const supply = city === "R" ? info.riga_supply.map((c) => building(c, " unbuilt")).join("") : "";
      return `<div class="rg-city rg-${city}" data-city="${city}" data-count="${Number(count)}"><span class="rg-city-head">${city} · ${CITIES[city]} <b>${Number(count)}</b></span>${cards}${supply}</div>`;
    }).join("");
  }

  function seat(s, meta, frame, p) {
    const info = s.players[p];
    const own = String(frame.view) === String(p);
    const acting = frame.acting.includes(p) ? " acting" : "";
    const cash = money(s, p, own);
    return `<div class="rg-seat${acting}" data-seat="${p}"><div class="rg-seat-head">${seatDot(p)}<b>${esc(meta.seats[p].bot)}</b>`
      + `<span title="knights">⚔ ${Number(info.knights)}</span><span title="merchants">⚖ ${Number(info.merchants)}</span>`
      + `<span title="VP of the built buildings">${Number(info.building_vp)} VP built</span>`
      + (cash === null ? "" : `<span class="rg-money" data-money="${Number(cash)}" title="goods at base value + unused credits">money ${Number(cash)}</span>`)
      + `<span class="rg-score" data-score="${Number(s.scores[p])}">${Number(s.scores[p])} pts</span></div>`
      + `<div class="rg-tableau">${tableau(info)}</div>${startChoice(s, p)}${hand(s, p, own)}</div>`;
  }

  function draw(frame, meta) {
    const s = frame.state;
    const table = `<div class="rg-table">${header(s)}${rows(s)}${display(s)}${decks(s)}${tiles(s)}${pending(s)}</div>`;
    const seats = meta.seats.map((_, p) => seat(s, meta, frame, p)).join("");
    return `<div class="rg" data-phase="${esc(s.phase)}">${table}<div class="rg-seats">${seats}</div></div>`;
  }

  window.ArenaGames.register("riga", { draw, cards: CARDS });
})();
