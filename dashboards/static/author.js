// The author's bot page (/my/bots/NAME): its recent and running matches follow the games as they
// are played, from /my/bots/NAME/recent every 5 s. Everything a bot or an author chose is set as
// text (textContent), never as HTML.
"use strict";

(function () {
  const section = document.getElementById("recent");
  if (!section) return;
  const rows = document.getElementById("recent-rows");
  const live = document.getElementById("playing-now");

  function cell(tr, text, className) {
    const td = document.createElement("td");
    if (className) td.className = className;
    if (text instanceof Node) td.appendChild(text); else td.textContent = text;
    tr.appendChild(td);
    return td;
  }

  function link(href, text, className) {
    const a = document.createElement("a");
    a.href = href;
    a.textContent = text;
    if (className) a.className = className;
    return a;
  }

  function when(iso) {
    return iso ? iso.slice(0, 16).replace("T", " ") : "—";
  }

  function ended(seat) {
    if (seat.termination === "normal") return "normal";
    const pill = document.createElement("span");
    pill.className = "pill pill-fault";
    pill.textContent = seat.termination.replaceAll("_", " ");
    return pill;
  }

  function draw(data) {
    const body = document.createDocumentFragment();
    for (const m of data.matches) {
      for (const s of m.seats) {
        const tr = document.createElement("tr");
        tr.dataset.match = String(m.id);
        cell(tr, link(m.url, String(m.id)));
        cell(tr, m.game_name);
        const code = document.createElement("span");
        const name = document.createElement("code");
        name.textContent = s.entrant;
        const seat = document.createElement("span");
        seat.className = "muted";
        seat.textContent = " seat " + s.seat;
        code.append(name, seat);
        cell(tr, code);
        cell(tr, s.rank === null ? "—" : String(s.rank), "num");
        cell(tr, ended(s));
        cell(tr, s.reason, "reason");
        cell(tr, m.opponents.join(", "), "muted");
        const links = document.createElement("span");
        links.append(link(s.log, "log", "log-link"), " · ", link(s.replay, "my replay", "replay-link"));
        cell(tr, links);
        cell(tr, when(m.finished_at), "muted");
        body.appendChild(tr);
      }
    }
    if (!data.matches.length) {
      const tr = document.createElement("tr");
      tr.className = "none";
      cell(tr, "No matches yet.", "empty").colSpan = 9;
      body.appendChild(tr);
    }
    rows.replaceChildren(body);
    live.replaceChildren(...data.live.map((m) => {
      const li = document.createElement("li");
      const seats = document.createElement("span");
      seats.className = "muted";
      seats.textContent = " " + m.seats.join(", ");
      li.append("playing now: ", link(m.url, `match ${m.index} of tournament ${m.tournament}`), seats);
      return li;
    }));
  }

  async function poll() {
    try {
      const response = await fetch(section.dataset.url, { credentials: "same-origin", cache: "no-store" });
      if (response.status === 401) { window.location.assign("/signin"); return; }
      if (response.ok) draw(await response.json());
    } catch (error) {
      // the dashboard restarted or the network blinked: the next poll tries again
    }
    setTimeout(poll, 5000);
  }
  setTimeout(poll, 5000);
})();
