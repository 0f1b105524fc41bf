// The dashboard's page, script and stylesheet, served as three same-origin files (the page's
// Content-Security-Policy allows nothing else). The script polls /sandbox/ui/state once a
// second and renders with DOM methods and textContent only: request paths, bodies and answers
// come from whoever called the sandbox, so none of it is ever parsed as HTML.

export const DASHBOARD_HTML = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Sandbox dashboard — Merchant Open Platform</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/sandbox/ui/dashboard.css">
<script src="/sandbox/ui/dashboard.js" defer></script>
</head>
<body>
<header>
  <h1>Sandbox dashboard</h1>
  <nav aria-label="Sandbox"><a href="/docs/">Docs</a> <a href="/docs/guides/sandbox.html">Sandbox guide</a></nav>
</header>
<main>
  <section aria-labelledby="clock-h">
    <h2 id="clock-h">Clock</h2>
    <p><span id="clock-now">…</span> <span class="muted" id="clock-offset"></span></p>
    <form id="advance">
      <label for="advance-seconds">Advance by (seconds)</label>
      <input id="advance-seconds" type="number" min="1" step="1" value="60" required>
      <button type="submit">Advance the clock</button>
    </form>
  </section>
  <p id="status" role="status" aria-live="polite"></p>
  <section aria-labelledby="requests-h">
    <h2 id="requests-h">Latest requests</h2>
    <div class="scroll"><table id="requests"><thead><tr><th>Time</th><th>Request</th><th>Operation</th><th>HTTP</th><th>Code</th><th>ms</th></tr></thead><tbody></tbody></table></div>
  </section>
  <section aria-labelledby="trades-h">
    <h2 id="trades-h">Trades</h2>
    <div class="scroll"><table id="trades"><thead><tr><th>Trade</th><th>Order</th><th>Status</th><th>Amount (fen)</th><th>Created</th><th>Actions</th></tr></thead><tbody></tbody></table></div>
  </section>
  <section aria-labelledby="orders-h">
    <h2 id="orders-h">Orders</h2>
    <div class="scroll"><table id="orders"><thead><tr><th>Order</th><th>Merchant</th><th>Type</th><th>Status</th><th>Amount (fen)</th><th>Created</th><th>Actions</th></tr></thead><tbody></tbody></table></div>
  </section>
  <section aria-labelledby="callbacks-h">
    <h2 id="callbacks-h">Callback deliveries</h2>
    <div id="callbacks"></div>
  </section>
</main>
</body>
</html>
`;

export const DASHBOARD_CSS = `
:root { color-scheme: light dark; --fg: #1b1f24; --bg: #fff; --muted: #57606a; --line: #d0d7de; --bad: #b42318; --good: #1a7f37; --code: #f3f4f6; --link: #0550ae; }
@media (prefers-color-scheme: dark) { :root { --fg: #e6edf3; --bg: #0d1117; --muted: #9da7b3; --line: #30363d; --bad: #ff7b72; --good: #3fb950; --code: #161b22; --link: #58a6ff; } }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", sans-serif; color: var(--fg); background: var(--bg); }
header, main { max-width: 72rem; margin: 0 auto; padding: 0 1rem; }
header { display: flex; justify-content: space-between; align-items: baseline; flex-wrap: wrap; border-bottom: 1px solid var(--line); }
header nav a { margin-left: 1rem; color: var(--link); }
h1 { font-size: 1.4rem; } h2 { font-size: 1.1rem; margin-top: 1.75rem; }
.muted { color: var(--muted); }
.scroll { overflow-x: auto; }
table { border-collapse: collapse; width: 100%; font-size: .9rem; }
th, td { border-bottom: 1px solid var(--line); padding: .3rem .5rem; text-align: left; vertical-align: top; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
.bad { color: var(--bad); font-weight: 600; } .good { color: var(--good); font-weight: 600; }
code, pre { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: .85em; background: var(--code); border-radius: 4px; }
pre { padding: .5rem .75rem; white-space: pre-wrap; word-break: break-all; margin: .25rem 0; }
button { font: inherit; padding: .2rem .6rem; margin: 0 .25rem .25rem 0; cursor: pointer; }
form#advance { display: flex; gap: .5rem; align-items: center; flex-wrap: wrap; }
input { font: inherit; width: 8rem; padding: .2rem .4rem; }
.delivery { border: 1px solid var(--line); border-radius: 6px; padding: .5rem .75rem; margin: .5rem 0; }
.delivery h3 { font-size: 1rem; margin: 0 0 .25rem; }
#status:empty { display: none; }
#status { border-left: 4px solid var(--line); padding: .25rem .75rem; }
`;

// Plain browser JavaScript (no build step); kept small and dependency-free.
export const DASHBOARD_JS = `"use strict";
(function () {
  const $ = (id) => document.getElementById(id);
  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (key === "class") node.className = value;
      else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
      else node.setAttribute(key, value);
    }
    for (const child of children) if (child !== null && child !== undefined) node.append(child instanceof Node ? child : String(child));
    return node;
  }
  function say(text, bad) {
    const status = $("status");
    status.textContent = text;
    status.className = bad ? "bad" : "";
  }
  // Same-origin JSON, as the control API requires of state-changing requests.
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
    await refresh();
  }
  function requestRows(requests) {
    const rows = [];
    for (const r of requests) {
      const failed = r.status >= 400;
      rows.push(el("tr", { "data-path": r.path },
        el("td", {}, r.time), el("td", {}, el("code", {}, r.method + " " + r.path)), el("td", {}, r.operationId || "–"),
        el("td", { class: failed ? "bad" : "good" }, r.status), el("td", { class: "num" }, r.code === null ? "–" : r.code), el("td", { class: "num" }, r.durationMs)));
      if (r.signature) {
        const s = r.signature;
        rows.push(el("tr", { class: "refusal" }, el("td", { colspan: "6" },
          el("div", {}, el("strong", {}, s.name + ": "), s.message),
          el("div", {}, "Expected string to sign (appKey + timestamp + nonce + body" + (s.truncated ? ", body cut for display" : "") + "):"),
          el("pre", { class: "expected" }, s.expectedStringToSign === null ? "(a header it is made of is missing)" : s.expectedStringToSign),
          el("div", {}, "What arrived:"),
          el("pre", { class: "received" }, "X-App-Key: " + s.received.appKey + "\\nX-Timestamp: " + s.received.timestamp + "\\nX-Nonce: " + s.received.nonce + "\\nX-Sign: " + s.received.sign))));
      }
    }
    return rows;
  }
  function tradeRows(trades) {
    return trades.map((t) => {
      const open = t.status === "WAIT_BUYER_PAY";
      return el("tr", { "data-trade": t.tradeNo },
        el("td", {}, el("code", {}, t.tradeNo), el("br"), el("span", { class: "muted" }, t.outTradeNo)),
        el("td", {}, t.orderId || "–"), el("td", { class: "trade-status" }, t.status), el("td", { class: "num" }, t.totalAmount), el("td", {}, t.createTime),
        el("td", {}, open ? el("button", { type: "button", onclick: () => act("Pay " + t.tradeNo, "/sandbox/trades/" + encodeURIComponent(t.tradeNo) + "/pay") }, "Pay") : null,
          open ? el("button", { type: "button", onclick: () => act("Close " + t.tradeNo, "/sandbox/trades/" + encodeURIComponent(t.tradeNo) + "/close") }, "Close") : null));
    });
  }
  function orderRows(orders) {
    return orders.map((o) => el("tr", { "data-order": o.orderId },
      el("td", {}, el("code", {}, o.orderId)), el("td", {}, o.merchantId), el("td", {}, o.orderType), el("td", {}, o.status), el("td", { class: "num" }, o.totalAmount), el("td", {}, o.createTime),
      el("td", {}, el("button", { type: "button", onclick: () => act("Start service of " + o.orderId, "/sandbox/orders/" + encodeURIComponent(o.orderId) + "/start-service") }, "Start service"))));
  }
  function deliveryCards(deliveries) {
    if (deliveries.length === 0) return [el("p", { class: "muted" }, "No callbacks yet: pay a trade.")];
    return deliveries.map((d) => el("div", { class: "delivery", "data-event": d.eventId },
      el("h3", {}, d.type + " ", el("code", {}, d.eventId), " ", el("span", { class: d.status === "delivered" ? "good" : d.status === "failed" ? "bad" : "muted" }, d.status)),
      el("div", { class: "muted" }, "to " + (d.targetUrl || "(no target)") + (d.tradeNo ? " · trade " + d.tradeNo : "") + (d.nextAttemptTime ? " · next attempt " + d.nextAttemptTime : "") + (d.failureReason ? " · " + d.failureReason : "")),
      el("ol", { class: "attempts" }, ...d.attempts.map((a) => el("li", { class: a.acknowledged ? "good" : "bad" },
        a.time + " · " + (a.httpStatus === null ? "no answer" : "HTTP " + a.httpStatus) + (a.error && a.error !== "HTTP " + a.httpStatus ? " · " + a.error : "") + " · " + a.durationMs + " ms",
        a.responseBody ? el("pre", {}, a.responseBody) : null))),
      el("button", { type: "button", onclick: () => act("Resend " + d.eventId, "/sandbox/ui/callbacks/" + encodeURIComponent(d.eventId) + "/resend") }, "Resend")));
  }
  function fill(id, rows) {
    const body = $(id).tBodies[0];
    body.replaceChildren(...rows);
  }
  let refreshing = false;
  async function refresh() {
    if (refreshing) return;
    refreshing = true;
    try {
      const response = await fetch("/sandbox/ui/state", { cache: "no-store" });
      const state = await response.json();
      $("clock-now").textContent = state.clock.now;
      $("clock-offset").textContent = state.clock.offsetSeconds ? "(moved " + state.clock.offsetSeconds + " s ahead)" : "(real time)";
      fill("requests", requestRows(state.requests));
      fill("trades", tradeRows(state.trades));
      fill("orders", orderRows(state.orders));
      $("callbacks").replaceChildren(...deliveryCards(state.deliveries));
    } catch (error) {
      say("The sandbox does not answer: " + error.message, true);
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
    refresh();
    setInterval(refresh, 1000);
  });
})();
`;
