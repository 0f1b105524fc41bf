// The dashboard's script: plain browser JavaScript (no build step), DOM methods and textContent
// only (paths, bodies and answers come from whoever called the sandbox, so none of it is ever
// parsed as HTML). It polls /sandbox/ui/state once a second and updates the page in place:
// rows are keyed (request id, tradeNo, orderId, eventId) and a cell is written only when its
// text changes, so focus, a text selection, the scroll position and open <details> survive
// every update. The request detail is fetched once when opened and not redrawn by polling.
// Written with String.raw: the browser sees the backslashes as they are written here.

export const DASHBOARD_JS = String.raw`"use strict";
(function () {
  const $ = (id) => document.getElementById(id);
  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (value === null || value === undefined || value === false) continue;
      if (key === "class") node.className = value;
      else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
      else node.setAttribute(key, value === true ? "" : value);
    }
    for (const child of children) if (child !== null && child !== undefined) node.append(child instanceof Node ? child : String(child));
    return node;
  }
  /** Writes text only when it differs: an unchanged node keeps its selection. */
  function setText(node, text) {
    const value = text === null || text === undefined ? "" : String(text);
    if (node.textContent !== value) node.textContent = value;
  }
  function setClass(node, name) {
    if (node.className !== name) node.className = name;
  }
  function say(text, bad) {
    setText($("status"), text);
    setClass($("status"), bad ? "bad" : "");
  }

  // ---- actions: same-origin JSON, as the control API requires of state-changing requests ----
  async function post(path, body) {
    const response = await fetch(path, { method: "POST", headers: { "Content-Type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body), credentials: "same-origin" });
    let answer = null;
    try { answer = await response.json(); } catch (_) { /* not JSON */ }
    return { status: response.status, answer };
  }
  async function act(label, path, body) {
    say(label + "…");
    try {
      const { status, answer } = await post(path, body);
      if (answer && (answer.code === 0 || answer.ok === true)) say(label + ": done.");
      else say(label + ": refused (HTTP " + status + ") " + ((answer && (answer.msg || answer.reason)) || ""), true);
    } catch (error) {
      say(label + ": " + error.message, true);
    }
    await refresh(true);
  }
  async function copy(text, what) {
    try {
      await navigator.clipboard.writeText(text);
      say(what + " copied.");
    } catch (_) {
      say(what + ": the browser refused the clipboard; select the text and copy it.", true);
    }
  }

  // ---- keyed rows ----
  /** Puts one row per item in order, reusing each item's row: update(row, item) refreshes it in place. */
  function syncRows(container, items, keyOf, build, update) {
    const existing = new Map();
    for (const row of Array.from(container.children)) existing.set(row.dataset.key, row);
    let cursor = container.firstElementChild;
    const kept = new Set();
    for (const item of items) {
      const key = String(keyOf(item));
      let row = existing.get(key);
      if (!row) {
        row = build(item);
        row.dataset.key = key;
      }
      kept.add(key);
      const signature = JSON.stringify(item);
      if (row.dataset.signature !== signature) {
        update(row, item);
        row.dataset.signature = signature;
      }
      // Rows already in order are never moved (moving a node would drop the focus inside it).
      if (row !== cursor) container.insertBefore(row, cursor);
      else cursor = cursor.nextElementSibling;
    }
    for (const [key, row] of existing) if (!kept.has(key)) row.remove();
  }
  function cells(row, labels) {
    if (row.children.length === 0) for (const label of labels) row.append(el("td", { "data-label": label }));
    return Array.from(row.children);
  }

  // ---- requests ----
  let lastState = null;
  let selectedId = null;
  const REQUEST_LABELS = ["Time", "Request", "Operation", "HTTP", "Code", "Diagnosis", "ms"];
  function buildRequest(r) {
    const row = el("tr");
    const c = cells(row, REQUEST_LABELS);
    c[1].append(el("button", { type: "button", class: "link", onclick: () => openDetail(r.id) }));
    c[4].className = "num"; c[6].className = "num";
    return row;
  }
  function updateRequest(row, r) {
    const c = Array.from(row.children);
    setText(c[0], r.time);
    setText(c[1].firstChild, r.method + " " + r.url);
    c[1].firstChild.setAttribute("aria-label", "Details of " + r.method + " " + r.url + " at " + r.time);
    setText(c[2], r.operationId || "–");
    setText(c[3], r.status);
    setClass(c[3], r.outcome === "ok" ? "good" : "bad");
    setText(c[4], r.code === null ? "–" : r.code);
    setText(c[5], r.diagnosis ? r.diagnosis + (r.message ? ": " + r.message : "") : "");
    setText(c[6], r.durationMs);
  }
  function matches(r) {
    const status = $("filter-status").value, operation = $("filter-operation").value, app = $("filter-app").value;
    const text = $("filter-text").value.trim().toLowerCase();
    if (status && r.outcome !== status) return false;
    if (operation && r.operationId !== operation) return false;
    if (app && r.app !== app) return false;
    if (text && !(r.method + " " + r.url + " " + (r.operationId || "") + " " + (r.message || "")).toLowerCase().includes(text)) return false;
    return true;
  }
  /** Options from what was seen; the chosen value is kept, the list is rebuilt only when it changed. */
  function syncOptions(select, values) {
    const wanted = [""].concat(Array.from(new Set(values.filter(Boolean))).sort());
    if (select.value && !wanted.includes(select.value)) wanted.push(select.value);
    const have = Array.from(select.options).map((o) => o.value);
    if (have.join("\n") === wanted.join("\n")) return;
    const chosen = select.value;
    select.replaceChildren(...wanted.map((v) => el("option", { value: v }, v || "all")));
    select.value = chosen;
  }
  function renderRequests(state) {
    syncOptions($("filter-operation"), state.requests.map((r) => r.operationId));
    syncOptions($("filter-app"), state.requests.map((r) => r.app));
    syncRows($("requests").tBodies[0], state.requests, (r) => r.id, buildRequest, updateRequest);
    let shown = 0;
    for (const row of $("requests").tBodies[0].children) {
      const r = state.requests.find((x) => String(x.id) === row.dataset.key);
      const visible = r ? matches(r) : false;
      if (visible) shown += 1;
      if (row.hidden === visible) row.hidden = !visible;
      const selected = row.dataset.key === String(selectedId);
      if (row.classList.contains("selected") !== selected) row.classList.toggle("selected", selected);
    }
    setText($("requests-count"), shown + " of the latest " + state.requests.length + " requests shown · the dashboard's own reads: " + state.ownRequests + " (counted, not listed or logged)");
  }

  // ---- the request detail ----
  function pre(text, cls) { return el("pre", { class: cls || null }, text); }
  function bodyView(body) {
    if (body.kind === "none") return el("p", { class: "muted" }, "(no body)");
    if (body.kind === "not-read") return el("p", { class: "muted" }, "(not read: the request was refused before its body was read)");
    if (body.kind === "not-kept") return el("p", { class: "muted" }, "(not kept: " + (body.contentType || "not an API answer") + ")");
    return el("div", {}, pre(body.text, "body"), body.truncated ? el("p", { class: "muted" }, "Cut at " + body.text.length + " characters of " + body.bytes + " bytes.") : null);
  }
  function recordLink(link) {
    const state = lastState || { orders: [], trades: [] };
    const shown = link.kind === "order" ? state.orders.some((o) => o.orderId === link.id) : state.trades.some((t) => t.tradeNo === link.id);
    const label = (link.kind === "order" ? "Order " : "Trade ") + link.id;
    return el("li", {}, shown ? el("a", { href: "#" + link.kind + "-" + link.id }, label) : label + " (not among the latest shown)");
  }
  function signatureView(s) {
    const expected = s.expectedStringToSign;
    return el("div", { class: "diagnosis" },
      el("p", {}, el("strong", {}, s.name + ": "), s.message),
      el("p", {}, "Expected string to sign (appKey + timestamp + nonce + body" + (s.truncated ? ", body cut for display" : "") + (s.bodyRead ? "" : "; the body was not read, so it ends where the body begins") + "):"),
      pre(expected === null ? "(a header it is made of is missing)" : expected, "expected"),
      expected === null ? null : el("button", { type: "button", onclick: () => copy(expected, "The string to sign") }, "Copy the string to sign"),
      el("p", {}, "What arrived:"),
      pre("X-App-Key: " + s.received.appKey + "\nX-Timestamp: " + s.received.timestamp + "\nX-Nonce: " + s.received.nonce + "\nX-Sign: " + s.received.sign, "received"));
  }
  function renderDetail(d) {
    const facts = el("dl", { class: "facts" });
    const fact = (name, value) => facts.append(el("dt", {}, name), el("dd", {}, value));
    fact("Request", el("code", {}, d.method + " " + d.url));
    fact("Operation", d.operationId || "–");
    fact("Answer", "HTTP " + d.status + (d.code === null ? "" : " · code " + d.code));
    fact("Time", d.time + " (sandbox clock) · " + d.durationMs + " ms");
    fact("App", d.app ? d.app + (d.appVerified ? " (signature verified)" : " (as named in the request; not verified)") : "–");
    // The fault that answered the request, once the sandbox can inject faults.
    fact("Fault", d.fault ? d.fault.name : "none");
    const parts = [facts];
    if (d.error || d.message) parts.push(el("h3", {}, "What the API said"), el("p", { class: "message" }, d.error ? el("strong", {}, d.error.name + " (" + d.error.meaning + ") ") : null, d.message || ""));
    if (d.signature) parts.push(el("h3", {}, "Signature diagnosis"), signatureView(d.signature));
    if (d.links.length) parts.push(el("h3", {}, "Touched"), el("ul", { class: "links" }, ...d.links.map(recordLink)));
    parts.push(el("h3", {}, "Request headers"), pre(d.headers.map((h) => h[0] + ": " + h[1]).join("\n"), "headers"));
    parts.push(el("h3", {}, "Request body"), bodyView(d.requestBody));
    parts.push(el("h3", {}, "Response body"), bodyView(d.responseBody));
    parts.push(el("h3", {}, "Replay"));
    if (d.curl.command) parts.push(pre(d.curl.command, "curl"), el("button", { type: "button", onclick: () => copy(d.curl.command, "The curl command") }, "Copy as curl"));
    else parts.push(el("p", { class: "muted" }, "No curl command: " + d.curl.unavailable + "."));
    $("detail-body").replaceChildren(...parts);
  }
  async function openDetail(id) {
    selectedId = id;
    try {
      const response = await fetch("/sandbox/ui/requests/" + id, { cache: "no-store" });
      const detail = await response.json();
      if (!response.ok) return say("Request " + id + ": " + (detail.reason || "not available"), true);
      renderDetail(detail);
      $("detail").hidden = false;
      $("detail-h").focus();
      if (lastState) renderRequests(lastState);
    } catch (error) {
      say("Request detail: " + error.message, true);
    }
  }

  // ---- trades, orders, callbacks ----
  function buildTrade(t) {
    const row = el("tr", { id: "trade-" + t.tradeNo, tabindex: "-1", "data-trade": t.tradeNo });
    cells(row, ["Trade", "Order", "Status", "Amount (fen)", "Created", "Actions"]);
    return row;
  }
  function updateTrade(row, t) {
    const c = Array.from(row.children);
    if (!c[0].firstChild) c[0].append(el("code"), el("br"), el("span", { class: "muted" }));
    setText(c[0].children[0], t.tradeNo); setText(c[0].children[2], t.outTradeNo);
    setText(c[1], t.orderId || "–");
    if (!c[2].firstChild) c[2].append(el("span", { class: "trade-status" }), " ", el("span", { class: "muted" }));
    setText(c[2].children[0], t.status); setText(c[2].children[1], t.statusMeaning ? "(" + t.statusMeaning + ")" : "");
    setText(c[3], t.totalAmount); c[3].className = "num";
    setText(c[4], t.createTime);
    const open = t.status === "WAIT_BUYER_PAY";
    if (open && c[5].children.length === 0) {
      c[5].append(el("button", { type: "button", onclick: () => act("Pay " + t.tradeNo, "/sandbox/trades/" + encodeURIComponent(t.tradeNo) + "/pay") }, "Pay"),
        el("button", { type: "button", onclick: () => act("Close " + t.tradeNo, "/sandbox/trades/" + encodeURIComponent(t.tradeNo) + "/close") }, "Close"));
    } else if (!open && c[5].children.length > 0) c[5].replaceChildren();
  }
  function buildOrder(o) {
    const row = el("tr", { id: "order-" + o.orderId, tabindex: "-1", "data-order": o.orderId });
    cells(row, ["Order", "Merchant", "Type", "Status", "Amount (fen)", "Created", "Actions"]);
    return row;
  }
  function updateOrder(row, o) {
    const c = Array.from(row.children);
    if (!c[0].firstChild) c[0].append(el("code"));
    setText(c[0].firstChild, o.orderId);
    setText(c[1], o.merchantId);
    setText(c[2], o.orderTypeWord + " (" + o.orderType + ")");
    setText(c[3], o.statusWord + " (" + o.status + ")"); c[3].className = "order-status";
    setText(c[4], o.totalAmount); c[4].className = "num";
    setText(c[5], o.createTime);
    if (o.canStartService && c[6].children.length === 0) c[6].append(el("button", { type: "button", onclick: () => act("Start service of " + o.orderId, "/sandbox/orders/" + encodeURIComponent(o.orderId) + "/start-service") }, "Start service"));
    else if (!o.canStartService && c[6].children.length > 0) c[6].replaceChildren();
  }
  function buildDelivery(d) {
    return el("article", { class: "delivery", "data-event": d.eventId, "aria-label": "Callback " + d.eventId },
      el("h3", {}, el("span", { class: "type" }), " ", el("code", {}, d.eventId), " ", el("span", { class: "state" })),
      el("p", { class: "muted meta" }),
      el("details", { class: "payload" }, el("summary", {}, "Payload (the exact bytes of every attempt)"), pre("", "payload-text")),
      el("ol", { class: "attempts" }),
      el("button", { type: "button", onclick: () => act("Resend " + d.eventId, "/sandbox/ui/callbacks/" + encodeURIComponent(d.eventId) + "/resend") }, "Resend"));
  }
  function buildAttempt() {
    return el("li", {}, el("span", { class: "summary" }), " ", el("span", { class: "tag trigger" }),
      el("details", {}, el("summary", {}, "Signature headers sent"), pre("", "sent-headers")),
      el("div", { class: "answer" }));
  }
  function updateAttempt(li, a) {
    setClass(li, a.acknowledged ? "good" : "bad");
    setText(li.querySelector(".summary"), "#" + a.attempt + " · " + a.time + " · " + (a.httpStatus === null ? "no answer" : "HTTP " + a.httpStatus) + (a.error && a.error !== "HTTP " + a.httpStatus ? " · " + a.error : "") + " · " + a.durationMs + " ms");
    setText(li.querySelector(".trigger"), a.trigger === "manual" ? "manual resend" : "scheduled");
    setText(li.querySelector(".sent-headers"), Object.entries(a.headers).map((h) => h[0] + ": " + h[1]).join("\n") || "(nothing was sent)");
    const answer = li.querySelector(".answer");
    if (a.responseBody && !answer.firstChild) answer.append(el("span", {}, "The receiver answered:"), pre(a.responseBody, "response"));
  }
  function updateDelivery(card, d) {
    setText(card.querySelector(".type"), d.type);
    const state = card.querySelector(".state");
    setText(state, d.status); setClass(state, "state " + (d.status === "delivered" ? "good" : d.status === "failed" ? "bad" : "muted"));
    setText(card.querySelector(".meta"), "to " + (d.targetUrl || "(no target)") + (d.tradeNo ? " · trade " + d.tradeNo : "") + (d.nextAttemptTime ? " · next attempt " + d.nextAttemptTime : "") + (d.failureReason ? " · " + d.failureReason : ""));
    setText(card.querySelector(".payload-text"), d.body);
    syncRows(card.querySelector(".attempts"), d.attempts, (a) => a.attempt, buildAttempt, updateAttempt);
  }

  // ---- polling, pause, connection ----
  let paused = false;
  let refreshing = false;
  let downSince = null;
  function connection(text, cls) {
    setText($("connection"), text);
    setClass($("connection"), cls);
  }
  async function refresh(force) {
    if ((paused && !force) || refreshing) return;
    refreshing = true;
    try {
      const response = await fetch("/sandbox/ui/state", { cache: "no-store" });
      if (!response.ok) throw new Error("HTTP " + response.status);
      const state = await response.json();
      lastState = state;
      downSince = null;
      // Stable text while live, so a screen reader is not told the same thing every second.
      if (!paused) connection("Live: the page updates every second", "is-live");
      setText($("clock-now"), state.clock.now);
      setText($("clock-offset"), state.clock.offsetSeconds ? "(moved " + state.clock.offsetSeconds + " s ahead of real time)" : "(real time)");
      $("reset-clock").disabled = !state.clock.offsetSeconds;
      renderRequests(state);
      syncRows($("trades").tBodies[0], state.trades, (t) => t.tradeNo, buildTrade, updateTrade);
      syncRows($("orders").tBodies[0], state.orders, (o) => o.orderId, buildOrder, updateOrder);
      if (state.deliveries.length === 0 && !$("callbacks").querySelector(".empty")) $("callbacks").replaceChildren(el("p", { class: "muted empty" }, "No callbacks yet: pay a trade."));
      else if (state.deliveries.length > 0) {
        const empty = $("callbacks").querySelector(".empty");
        if (empty) empty.remove();
        syncRows($("callbacks"), state.deliveries, (d) => d.eventId, buildDelivery, updateDelivery);
      }
    } catch (error) {
      downSince = downSince || new Date().toLocaleTimeString();
      connection("The sandbox does not answer (since " + downSince + "): " + error.message + ". Retrying every second.", "is-down");
    } finally {
      refreshing = false;
    }
  }
  document.addEventListener("DOMContentLoaded", () => {
    $("advance").addEventListener("submit", (event) => {
      event.preventDefault();
      const seconds = Number($("advance-seconds").value);
      act("Advance the clock by " + seconds + " s", "/sandbox/clock/advance", { seconds });
    });
    $("reset-clock").addEventListener("click", () => act("Reset the clock to real time", "/sandbox/clock/reset"));
    $("pause").addEventListener("click", () => {
      paused = !paused;
      $("pause").setAttribute("aria-pressed", String(paused));
      setText($("pause"), paused ? "Resume live updates" : "Pause live updates");
      if (paused) connection("Paused: the page is not updated until you resume.", "");
      else refresh();
    });
    $("filters").addEventListener("submit", (event) => event.preventDefault());
    for (const id of ["filter-status", "filter-operation", "filter-app", "filter-text"]) $(id).addEventListener("input", () => lastState && renderRequests(lastState));
    refresh();
    setInterval(refresh, 1000);
  });
})();
`;
