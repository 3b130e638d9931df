// Arena dashboard: sortable tables, Chart.js charts, the replay viewer. Plain JS, no build step.
"use strict";

const PALETTE = ["#4f46e5", "#e4572e", "#17a398", "#d69e2e", "#a23b72", "#3d7dd8", "#5f8f2f", "#8c6bb1"];

// -- sortable tables: click a header with data-sort="num" or "text" -----------------------------
function makeSortable(table) {
  table.querySelectorAll("th[data-sort]").forEach((th) => {
    th.addEventListener("click", () => {
      const index = [...th.parentNode.children].indexOf(th);
      const numeric = th.dataset.sort === "num";
      const ascending = !th.classList.contains("sorted-asc");
      table.querySelectorAll("th").forEach((h) => h.classList.remove("sorted-asc", "sorted-desc"));
      th.classList.add(ascending ? "sorted-asc" : "sorted-desc");
      const body = table.tBodies[0];
      const key = (row) => row.children[index].dataset.value ?? row.children[index].textContent;
      const rows = [...body.rows].sort((a, b) => {
        const [x, y] = [key(a), key(b)];
        const order = numeric ? Number(x) - Number(y) : x.localeCompare(y);
        return ascending ? order : -order;
      });
      rows.forEach((row) => body.appendChild(row));
    });
  });
}

if (window.Chart) {
  Chart.defaults.font.family = '"Inter", system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';
  Chart.defaults.font.size = 12;
}

// -- charts: <canvas data-chart="ID-data"> with the series as JSON in <script id="ID-data"> ---
function drawChart(canvas) {
  const data = JSON.parse(document.getElementById(canvas.dataset.chart).textContent);
  const datasets = data.series.map((s, i) => ({
    label: s.bot,
    data: s.points.map(([x, y]) => ({ x, y })),
    borderColor: PALETTE[i % PALETTE.length],
    backgroundColor: PALETTE[i % PALETTE.length],
    // A rating holds until the bot's next match: a step after each point, not a slope.
    borderWidth: 2, pointRadius: s.points.length > 24 ? 0 : 2.5, pointHoverRadius: 5, stepped: "after",
  }));
  const lastX = Math.max(1, ...data.series.flatMap((s) => s.points.map(([x]) => x)));
  new Chart(canvas, {
    type: "line",
    data: { datasets },
    options: {
      responsive: true, maintainAspectRatio: false, animation: false, parsing: true,
      interaction: { mode: "nearest", intersect: false },
      scales: {
        x: { type: "linear", min: 0, max: lastX, title: { display: true, text: "rated match", color: "#6b7285" },
             grid: { color: "#f0f1f5" }, ticks: { color: "#6b7285", precision: 0 } },
        y: { title: { display: true, text: "Elo", color: "#6b7285" }, grid: { color: "#f0f1f5" },
             ticks: { color: "#6b7285" } },
      },
      plugins: {
        legend: { position: "bottom", labels: { usePointStyle: true, boxWidth: 8, boxHeight: 8, padding: 18, color: "#3b4252" } },
        tooltip: { callbacks: { label: (c) => `${c.dataset.label}: ${c.parsed.y.toFixed(0)} after rated match ${c.parsed.x}` } },
      },
    },
  });
}

// -- an SPRT test: <canvas data-sprt-chart="llr|pentanomial">, the test as JSON in #sprt-data ------
const AXIS = { grid: { color: "#f0f1f5" }, ticks: { color: "#6b7285" } };
const axisTitle = (text) => ({ display: true, text, color: "#6b7285" });

function sprtChart(canvas, test) {
  if (canvas.dataset.sprtChart === "pentanomial") {
    return new Chart(canvas, {
      type: "bar",
      data: { labels: ["0", "½", "1", "1½", "2"], datasets: [{ label: "pairs", data: test.pentanomial, backgroundColor: PALETTE[0] }] },
      options: { responsive: true, maintainAspectRatio: false, animation: false, plugins: { legend: { display: false } },
                 scales: { x: { ...AXIS, title: axisTitle(`${test.config.a}'s points in the pair`) },
                           y: { ...AXIS, beginAtZero: true, title: axisTitle("pairs"), ticks: { ...AXIS.ticks, precision: 0 } } } },
    });
  }
  const last = Math.max(1, test.pairs);
  const bound = (label, y, colour) => ({ label, data: [{ x: 0, y }, { x: last, y }], borderColor: colour, borderDash: [6, 4],
                                         borderWidth: 1.5, pointRadius: 0 });
  return new Chart(canvas, {
    type: "line",
    data: { datasets: [
      { label: "LLR", data: [{ x: 0, y: 0 }, ...test.history.map((p) => ({ x: p.pairs, y: p.llr }))],
        borderColor: PALETTE[0], backgroundColor: PALETTE[0], borderWidth: 2, pointRadius: test.history.length > 40 ? 0 : 2.5 },
      bound(`H1 bound ${test.upper.toFixed(2)}`, test.upper, "#0b7a53"),
      bound(`H0 bound ${test.lower.toFixed(2)}`, test.lower, "#b3261e"),
    ] },
    options: { responsive: true, maintainAspectRatio: false, animation: false,
               interaction: { mode: "nearest", intersect: false },
               scales: { x: { ...AXIS, type: "linear", min: 0, max: last, title: axisTitle("pairs"), ticks: { ...AXIS.ticks, precision: 0 } },
                         y: { ...AXIS, title: axisTitle("LLR") } },
               plugins: { legend: { position: "bottom", labels: { usePointStyle: true, boxWidth: 8, boxHeight: 8, color: "#3b4252" } } } },
  });
}

// -- game renderers: static/games/<game_id>.js calls ArenaGames.register(gameId, { draw }) --------
// draw(frame, meta) returns the HTML of the table at one position: `frame` is what
// /api/matches/ID/frames/N gives (position, view, node, acting, state: the observation of that
// view, result at the end), `meta` the match (game, seats with their bots). It draws only what
// `frame.state` holds: the server has already left out what the view may not see.
window.ArenaGames = {
  renderers: {},
  register(gameId, renderer) { this.renderers[gameId] = renderer; },
  // The pips of a die face 1..6 as SVG circles on a 0..30 square (the dice games share them).
  pips(value, colour = "#161b26") {
    const at = { 1: [[15, 15]], 2: [[8, 8], [22, 22]], 3: [[8, 8], [15, 15], [22, 22]], 4: [[8, 8], [22, 8], [8, 22], [22, 22]],
                 5: [[8, 8], [22, 8], [15, 15], [8, 22], [22, 22]], 6: [[8, 8], [22, 8], [8, 15], [22, 15], [8, 22], [22, 22]] }[value] || [];
    return at.map(([x, y]) => `<circle cx="${x}" cy="${y}" r="3" fill="${colour}"/>`).join("");
  },
};

// -- replay viewer -------------------------------------------------------------------------------
const esc = (text) => String(text).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c]));
const isScalar = (v) => v === null || ["string", "number", "boolean"].includes(typeof v);

function scalar(v) {
  if (v === null) return '<span class="nil">—</span>';
  if (v === true) return '<span class="yes">yes</span>';
  if (v === false) return '<span class="no">no</span>';
  return esc(v);
}

function render(v) {
  if (isScalar(v)) return scalar(v);
  if (Array.isArray(v)) {
    if (v.length === 0) return '<span class="nil">none</span>';
    if (v.every(isScalar)) return `<span class="list">${v.map((x) => `<span>${scalar(x)}</span>`).join("")}</span>`;
    if (v.every((x) => x && typeof x === "object" && !Array.isArray(x))) return grid(v);
    return `<table>${v.map((x, i) => `<tr><th>${i}</th><td>${render(x)}</td></tr>`).join("")}</table>`;
  }
  const keys = Object.keys(v);
  if (keys.length === 0) return '<span class="nil">none</span>';
  return `<table>${keys.map((k) => `<tr><th>${esc(k.replaceAll("_", " "))}</th><td>${render(v[k])}</td></tr>`).join("")}</table>`;
}

function grid(rows) {
  const columns = [...new Set(rows.flatMap((r) => Object.keys(r)))];
  const head = `<tr><th>#</th>${columns.map((c) => `<th>${esc(c.replaceAll("_", " "))}</th>`).join("")}</tr>`;
  const body = rows.map((r, i) => `<tr><th>${i}</th>${columns.map((c) => `<td>${c in r ? render(r[c]) : ""}</td>`).join("")}</tr>`).join("");
  return `<table class="grid">${head}${body}</table>`;
}

// Top-level fields with one scalar per seat (the server names them) become columns of a per-seat table; the rest follow.
function renderState(state, seats, seatFields, view) {
  const perSeat = seatFields.filter((k) => Array.isArray(state[k]) && state[k].length === seats.length);
  const seatRows = seats.map((s, i) => `<tr data-seat-row="${i}"><th><span class="seat-dot seat-${i}"></span>${i} · ${esc(s.bot)}</th>${perSeat.map((k) => `<td>${scalar(state[k][i])}</td>`).join("")}</tr>`).join("");
  const simple = Object.keys(state).filter((k) => !perSeat.includes(k) && isScalar(state[k]));
  const nested = Object.keys(state).filter((k) => !perSeat.includes(k) && !simple.includes(k));
  const hint = view === "public" ? "What every seat sees alike." : `Exactly what seat ${view} (${esc(seats[view].bot)}) was shown.`;
  let html = `<p class="hint">${hint}</p>`;
  if (perSeat.length) html += `<h3>Seats</h3><table class="grid"><tr><th>seat</th>${perSeat.map((k) => `<th>${esc(k.replaceAll("_", " "))}</th>`).join("")}</tr>${seatRows}</table>`;
  if (simple.length) html += `<h3>Table</h3><table>${simple.map((k) => `<tr><th>${esc(k.replaceAll("_", " "))}</th><td>${scalar(state[k])}</td></tr>`).join("")}</table>`;
  nested.forEach((k) => { html += `<h3>${esc(k.replaceAll("_", " "))}</h3>${render(state[k])}`; });
  return html;
}

function renderResult(result) {
  const rows = [...result.seats].sort((a, b) => (a.rank ?? 99) - (b.rank ?? 99)).map((s) =>
    `<tr><td><b>${s.rank ?? "–"}.</b></td><td><span class="seat-dot seat-${s.seat}"></span>${esc(s.bot)}</td><td class="final-score">${s.score ?? "—"}</td><td class="muted">${s.termination === "normal" ? "" : esc(s.termination + ": " + s.reason)}</td></tr>`).join("");
  const title = result.aborted ? `Aborted: ${esc(result.aborted)}` : "Final scores";
  return `<h3>${title}</h3><table id="final-scores">${rows}</table>`;
}

// One position drawn into `root`: the game's board, the observation fields, the result at the end,
// and the acting seats marked (the renderers mark their own areas `.acting`; this marks the tables).
function drawFrame(root, frame, meta) {
  root.querySelector("#state").innerHTML = renderState(frame.state, meta.seats, meta.seat_fields, frame.view);
  const renderer = window.ArenaGames.renderers[meta.game];
  const board = root.querySelector("#board");
  board.hidden = !renderer;
  board.innerHTML = renderer ? renderer.draw(frame, meta) : "";
  root.querySelector("details.fields").open ||= !renderer;
  const result = root.querySelector("#result");
  result.hidden = !frame.result;
  result.innerHTML = frame.result ? renderResult(frame.result) : "";
  document.querySelectorAll("[data-seat-row]").forEach((row) =>
    row.classList.toggle("acting", frame.acting.includes(Number(row.dataset.seatRow))));
}

class ReplayViewer {
  constructor(root) {
    this.root = root;
    this.match = root.dataset.match;
    this.last = Number(root.dataset.positions) - 1;
    this.meta = JSON.parse(document.getElementById("match-data").textContent);
    this.view = root.dataset.view;  // the server wrote the step log for this view
    this.position = Number(root.dataset.position);  // the server checked ?position= (clamped to the end)
    this.request = 0;
    this.bind();
    this.show(this.position);
  }

  bind() {
    const go = { start: () => 0, prev: () => this.position - 1, next: () => this.position + 1, end: () => this.last };
    this.root.querySelectorAll("[data-go]").forEach((b) => b.addEventListener("click", () => this.show(go[b.dataset.go]())));
    this.root.querySelector("#scrub").addEventListener("input", (e) => this.show(Number(e.target.value)));
    // Another view is another page: its step log names only the chance outcomes that view may see.
    this.root.querySelectorAll("[data-view]").forEach((b) => b.addEventListener("click", (e) => {
      e.preventDefault();
      window.location.assign(this.link(b.dataset.view));
    }));
    this.root.querySelectorAll("#log li").forEach((li) => li.addEventListener("click", () => this.show(Number(li.dataset.pos))));
    this.root.querySelector("#permalink").addEventListener("click", (e) => { e.preventDefault(); this.copyLink(); });
    document.addEventListener("keydown", (e) => {
      if (e.target.matches("input, select, textarea")) return;
      const keys = { ArrowLeft: this.position - 1, ArrowRight: this.position + 1, Home: 0, End: this.last };
      if (e.key in keys) { e.preventDefault(); this.show(keys[e.key]); }
    });
  }

  // This page at `view` and the position shown: what the address bar and the link control hold.
  link(view = this.view) {
    return `${window.location.pathname}?view=${encodeURIComponent(view)}&position=${this.position}`;
  }

  copyLink() {
    const note = this.root.querySelector("#permalink-note");
    const url = new URL(this.link(), window.location.href).href;
    const copied = navigator.clipboard ? navigator.clipboard.writeText(url) : Promise.reject(new Error("no clipboard"));
    copied.then(() => { note.textContent = "copied"; }, () => { note.textContent = "copy the link from the address bar"; });
  }

  async show(position) {
    position = Math.max(0, Math.min(this.last, position));
    this.position = position;
    const ticket = ++this.request;
    this.root.querySelector("#scrub").value = position;
    this.root.querySelector("#position").textContent = `${position} / ${this.last}`;
    this.root.querySelector("#permalink").href = this.link();
    this.root.querySelector("#permalink-note").textContent = "";
    window.history.replaceState(null, "", this.link());
    this.highlight(position);
    const response = await fetch(`/api/matches/${this.match}/frames/${position}?view=${this.view}`);
    const frame = await response.json();
    if (ticket !== this.request) return;  // a later step was asked for meanwhile
    if (!response.ok) { this.root.querySelector("#state").textContent = frame.error; return; }
    drawFrame(this.root, frame, this.meta);
    this.root.dataset.shown = `${position}:${frame.view}`;
  }

  highlight(position) {
    const log = this.root.querySelector("#log");
    log.querySelectorAll("li.current").forEach((li) => li.classList.remove("current"));
    const item = log.querySelector(`li[data-pos="${position}"]`);
    if (item) {
      item.classList.add("current");
      const top = item.offsetTop - log.offsetTop;
      if (top < log.scrollTop || top > log.scrollTop + log.clientHeight - 40) log.scrollTop = top - log.clientHeight / 3;
    }
    this.root.querySelector("#step-now").textContent = stepNow(position, item && item.dataset.words);
  }
}

function stepNow(position, words) {
  return position === 0 ? "Start of the match: nothing has happened yet." : `After step ${position}: ${words}`;
}

// -- the step log as the live page builds it (match.html renders the same markup on the server) --
function logItem(e) {
  const head = `<span class="log-n">${e.step}</span>${e.phase ? `<span class="log-phase">${esc(e.phase.replaceAll("_", " "))}</span>` : ""}`;
  let body;
  if (e.kind === "chance") {
    body = `<span class="log-chance${e.hidden ? " log-hidden" : ""}"><span class="tag-chance">chance</span> ${e.hidden ? `<i>${esc(e.label)}</i> <span class="muted">not seen from this view</span>` : `<b>${esc(e.label)}</b>`}</span>`;
  } else {
    body = e.actions.map((a) => `<span class="log-action"><span class="seat-dot seat-${a.seat}"></span>seat ${a.seat} · ${esc(a.bot)}: ${a.hidden ? `<i>${esc(a.label)}</i>` : `<b>${esc(a.label)}</b>`}${a.fault ? ` <span class="pill pill-fault">${esc(a.fault.fault.replaceAll("_", " "))} → random legal action</span>` : ""}</span>`).join("");
  }
  return `<li data-pos="${e.step}" class="log-${e.kind}" data-words="${esc(e.words)}">${head}${body}</li>`;
}

// -- a live match: polls /api/tournaments/T/live/I and draws its latest public position ----------
const LIVE_POLL_MS = window.ARENA_LIVE_POLL_MS || 2000;  // the browser tests poll faster

class LiveViewer {
  constructor(root) {
    this.root = root;
    this.api = `/api/tournaments/${root.dataset.tournament}/live/${root.dataset.index}`;
    this.poll();
  }

  async poll() {
    let data = null;
    try {
      const response = await fetch(this.api);
      data = await response.json();
      if (!response.ok) this.waiting(data.error);
      else if (data.status === "waiting") this.waiting(data.message);
      else if (data.status === "finished") return this.finished(data);
      else this.running(data);
    } catch (error) {
      this.waiting(`the dashboard did not answer (${error.message}); trying again`);
    }
    setTimeout(() => this.poll(), LIVE_POLL_MS);
  }

  waiting(message) {
    this.root.querySelector("#live-status").textContent = message;
  }

  running(data) {
    const meta = { game: data.game, seats: data.seats, result: null, seat_fields: data.seat_fields };
    const held = data.held_back ? " · held back where a sibling rotation has not drawn these cards or dice yet" : "";
    this.waiting(`Live: ${data.steps_shown} steps shown, public view only${held}`);
    drawFrame(this.root, data.frame, meta);
    const log = this.root.querySelector("#log");
    log.innerHTML = `<li data-pos="0" class="log-start">Start of the match</li>${data.log.map(logItem).join("")}`;
    log.scrollTop = log.scrollHeight;
    const last = data.log[data.log.length - 1];
    this.root.querySelector("#step-now").textContent = stepNow(data.steps_shown, last && last.words);
    this.root.dataset.shown = String(data.steps_shown);
    this.root.dataset.status = "running";
  }

  finished(data) {
    const match = data.match;
    const result = { aborted: match.aborted_reason, seats: match.seats };
    this.root.querySelector("#result").hidden = false;
    this.root.querySelector("#result").innerHTML = renderResult(result);
    const replay = data.replay_open ? `<a href="/matches/${match.id}">its replay</a>`
      : `its replay opens on <a href="/matches/${match.id}">its match page</a> once every rotation of its table has been played`;
    this.waiting("");
    this.root.querySelector("#live-status").innerHTML = `The match has ended: ${replay}.`;
    this.root.dataset.status = "finished";
  }
}

// -- a running tournament's page refreshes itself -----------------------------------------------
function autoRefresh(section) {
  setTimeout(() => window.location.reload(), Number(section.dataset.refresh) * 1000);
}

// -- a running SPRT test updates in place: its counts, LLR, estimate, verdict and both charts ----
// The page is fetched again and its parts swapped in (the server formats them, as on first load),
// without a reload, until the test is no longer running.
function liveTest(section) {
  const every = Number(section.dataset.live) * 1000;
  const tick = async () => {
    let fresh;
    try {
      const response = await fetch(window.location.pathname, { headers: { Accept: "text/html" } });
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      fresh = new DOMParser().parseFromString(await response.text(), "text/html");
    } catch (error) {  // the dashboard restarting, a network blip: try again next time
      setTimeout(tick, every);
      return;
    }
    const running = fresh.getElementById("verdict").hasAttribute("data-live");
    for (const selector of [".page-head", "#verdict"]) {
      document.querySelector(selector).innerHTML = fresh.querySelector(selector).innerHTML;
    }
    const data = fresh.getElementById("sprt-data").textContent;
    document.getElementById("sprt-data").textContent = data;
    document.querySelectorAll("canvas[data-sprt-chart]").forEach((canvas) => {
      Chart.getChart(canvas)?.destroy();
      sprtChart(canvas, JSON.parse(data));
    });
    if (running) setTimeout(tick, every);
    else section.removeAttribute("data-live");
  };
  setTimeout(tick, every);
}

// -- the ladder page updates in place: its ladders are fetched again and swapped in every few seconds
// (the server formats them, as on first load); without JavaScript it is a plain page to reload.
function liveLadder(root) {
  const every = Number(root.dataset.live) * 1000;
  const tick = async () => {
    try {
      const response = await fetch(window.location.pathname + window.location.search, { headers: { Accept: "text/html" } });
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      const fresh = new DOMParser().parseFromString(await response.text(), "text/html").getElementById("ladders");
      if (fresh) root.innerHTML = fresh.innerHTML;
      root.dataset.updates = String(Number(root.dataset.updates || 0) + 1);
    } catch (error) {  // the dashboard restarting, a network blip: try again next time
    }
    setTimeout(tick, every);
  };
  setTimeout(tick, every);
}

document.addEventListener("DOMContentLoaded", () => {
  document.querySelectorAll("table.sortable").forEach(makeSortable);
  // Charts draw on a canvas, which cannot re-render text once the web font arrives: wait for it.
  document.fonts.ready.then(() => document.querySelectorAll("canvas[data-chart]").forEach(drawChart));
  const test = document.getElementById("sprt-data");
  if (test) document.fonts.ready.then(() => document.querySelectorAll("canvas[data-sprt-chart]").forEach((c) => sprtChart(c, JSON.parse(test.textContent))));
  const replay = document.getElementById("replay");
  if (replay) window.replayViewer = new ReplayViewer(replay);
  const live = document.getElementById("live");
  if (live) window.liveViewer = new LiveViewer(live);
  const refresh = document.querySelector("[data-refresh]");
  if (refresh) autoRefresh(refresh);
  const liveSprt = document.querySelector("#verdict[data-live]");
  if (liveSprt) liveTest(liveSprt);
  const ladders = document.querySelector("#ladders[data-live]");
  if (ladders) liveLadder(ladders);
});
