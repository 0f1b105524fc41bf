// The dashboard's page and stylesheet (its script is in script.ts), served as same-origin files
// (the page's Content-Security-Policy allows nothing else). Below 48rem the tables become one
// block per row, so nothing sits off-screen in a region the keyboard cannot scroll.
export { DASHBOARD_JS } from "./script.js";

const FAULT_HEAD = `<thead><tr>${["Fault", "Operation", "Kind", "When", "Remaining", "App", "Delay, Retry-After", "Requests answered", "Actions"].map((name) => `<th scope="col">${name}</th>`).join("")}</tr></thead>`;

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
<a class="skip" href="#requests-h">Skip to the requests</a>
<header>
  <h1>Sandbox dashboard</h1>
  <nav aria-label="Sandbox"><a href="/docs/">Docs</a> <a href="/docs/guides/sandbox.html#the-dashboard">Dashboard guide</a></nav>
  <div class="live">
    <p id="connection" role="status" aria-live="polite">Connecting…</p>
    <button type="button" id="pause" aria-pressed="false">Pause live updates</button>
  </div>
</header>
<main>
  <section aria-labelledby="clock-h">
    <h2 id="clock-h">Clock</h2>
    <p><span id="clock-now">…</span> <span class="muted" id="clock-offset"></span></p>
    <form id="advance">
      <label for="advance-seconds">Advance by (seconds)</label>
      <input id="advance-seconds" type="number" min="1" step="1" value="60" required>
      <button type="submit">Advance the clock</button>
      <button type="button" id="reset-clock">Reset the clock</button>
    </form>
  </section>
  <p id="status" role="status" aria-live="polite"></p>
  <section aria-labelledby="faults-h" id="faults">
    <h2 id="faults-h" tabindex="-1">Faults</h2>
    <p class="muted">Make the next requests of an operation fail on purpose: a 429, a 500, a 503, a late answer, no answer or a dropped connection, before the operation or after it (<a href="/docs/guides/scenarios.html#faults">scenarios guide</a>). The requests a fault answered are marked in the list of requests.</p>
    <form id="fault-form" class="fault-form" aria-label="Add a fault">
      <div class="field"><label for="fault-operation">Operation</label><select id="fault-operation" required></select></div>
      <div class="field"><label for="fault-kind">Kind</label><select id="fault-kind" aria-describedby="fault-kind-hint"></select></div>
      <div class="field"><label for="fault-when">When</label><select id="fault-when" aria-describedby="fault-when-hint"></select></div>
      <div class="field"><label for="fault-times">Times</label><input id="fault-times" type="number" step="1" value="1" required></div>
      <div class="field"><label for="fault-delay">Delay in ms <span class="muted" id="fault-delay-note">(optional)</span></label><input id="fault-delay" type="number" step="1"></div>
      <div class="field" id="fault-retry-after-field" hidden><label for="fault-retry-after">Retry-After in s <span class="muted">(default 1)</span></label><input id="fault-retry-after" type="number" step="1"></div>
      <div class="field"><label for="fault-app">App</label><select id="fault-app" aria-describedby="fault-app-note"></select></div>
      <div class="field"><button type="submit" id="fault-add" disabled>Add the fault</button></div>
    </form>
    <p class="muted hint" id="fault-kind-hint"></p>
    <p class="muted hint" id="fault-when-hint"></p>
    <p class="muted hint" id="fault-app-note"></p>
    <p id="fault-status" role="status" aria-live="polite"></p>
    <h3 id="faults-active-h">Active faults</h3>
    <p class="muted" id="faults-active-count"></p>
    <table id="faults-active" aria-labelledby="faults-active-h" hidden>${FAULT_HEAD}<tbody></tbody></table>
    <h3 id="faults-spent-h">Spent faults</h3>
    <p class="muted" id="faults-spent-count"></p>
    <table id="faults-spent" aria-labelledby="faults-spent-h" hidden>${FAULT_HEAD}<tbody></tbody></table>
  </section>
  <section aria-labelledby="requests-h">
    <h2 id="requests-h" tabindex="-1">Latest requests</h2>
    <form id="filters" class="filters">
      <label>Status <select id="filter-status"><option value="">all</option><option value="ok">succeeded</option><option value="refused">refused (4xx or an error code)</option><option value="failed">failed (5xx)</option></select></label>
      <label>Operation <select id="filter-operation"><option value="">all</option></select></label>
      <label>App <select id="filter-app"><option value="">all</option></select></label>
      <label>Search <input id="filter-text" type="search" placeholder="path, id, message"></label>
      <label><input id="filter-fault" type="checkbox"> Answered by a fault</label>
    </form>
    <p class="muted" id="requests-count"></p>
    <table id="requests"><caption class="visually-hidden">Latest requests, newest first</caption><thead><tr><th scope="col">Time</th><th scope="col">Request</th><th scope="col">Operation</th><th scope="col">HTTP</th><th scope="col">Code</th><th scope="col">Diagnosis</th><th scope="col">ms</th></tr></thead><tbody></tbody></table>
  </section>
  <section aria-labelledby="detail-h" id="detail" hidden>
    <h2 id="detail-h" tabindex="-1">Request detail</h2>
    <div id="detail-body"></div>
  </section>
  <section aria-labelledby="trades-h">
    <h2 id="trades-h">Trades</h2>
    <table id="trades"><thead><tr><th scope="col">Trade</th><th scope="col">Order</th><th scope="col">Status</th><th scope="col">Amount (fen)</th><th scope="col">Created</th><th scope="col">Actions</th></tr></thead><tbody></tbody></table>
  </section>
  <section aria-labelledby="orders-h">
    <h2 id="orders-h">Orders</h2>
    <table id="orders"><thead><tr><th scope="col">Order</th><th scope="col">Merchant</th><th scope="col">Type</th><th scope="col">Status</th><th scope="col">Amount (fen)</th><th scope="col">Created</th><th scope="col">Actions</th></tr></thead><tbody></tbody></table>
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
:root { color-scheme: light dark; --fg: #1b1f24; --bg: #fff; --muted: #57606a; --line: #d0d7de; --bad: #b42318; --good: #1a7f37; --code: #f3f4f6; --link: #0550ae; --mark: #fff8c5; --warn: #9a4d00; }
@media (prefers-color-scheme: dark) { :root { --fg: #e6edf3; --bg: #0d1117; --muted: #9da7b3; --line: #30363d; --bad: #ff7b72; --good: #3fb950; --code: #161b22; --link: #58a6ff; --mark: #3b2e00; --warn: #f0883e; } }
* { box-sizing: border-box; }
[hidden] { display: none !important; }
body { margin: 0; font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", sans-serif; color: var(--fg); background: var(--bg); overflow-wrap: anywhere; }
.skip { position: absolute; left: -999px; } .skip:focus { left: 1rem; top: 1rem; background: var(--bg); padding: .5rem; z-index: 1; }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
header, main { max-width: 80rem; margin: 0 auto; padding: 0 1rem; }
header { display: flex; justify-content: space-between; align-items: center; flex-wrap: wrap; gap: .25rem 1rem; border-bottom: 1px solid var(--line); }
header nav a { margin-right: 1rem; }
a { color: var(--link); }
:focus-visible { outline: 2px solid var(--link); outline-offset: 2px; }
.live { display: flex; align-items: center; gap: .5rem; flex-wrap: wrap; }
#connection { margin: .25rem 0; }
#connection.is-live::before { content: "● "; color: var(--good); }
#connection.is-down { color: var(--bad); font-weight: 600; }
h1 { font-size: 1.4rem; } h2 { font-size: 1.1rem; margin-top: 1.75rem; } h3 { font-size: 1rem; }
.muted { color: var(--muted); }
table { border-collapse: collapse; width: 100%; font-size: .9rem; }
th, td { border-bottom: 1px solid var(--line); padding: .3rem .5rem; text-align: left; vertical-align: top; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
tr.selected { background: var(--mark); }
.bad { color: var(--bad); font-weight: 600; } .good { color: var(--good); font-weight: 600; }
code, pre { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: .85em; background: var(--code); border-radius: 4px; }
pre { padding: .5rem .75rem; white-space: pre-wrap; word-break: break-all; margin: .25rem 0; }
button { font: inherit; padding: .2rem .6rem; margin: 0 .25rem .25rem 0; cursor: pointer; }
button.link { background: none; border: none; padding: 0; margin: 0; color: var(--link); text-decoration: underline; text-align: left; font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: .85em; }
form#advance, form.filters { display: flex; gap: .5rem 1rem; align-items: center; flex-wrap: wrap; }
input, select { font: inherit; padding: .2rem .4rem; max-width: 100%; }
input[type=number] { width: 8rem; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: .1rem 1rem; margin: .5rem 0; }
dl.facts dt { font-weight: 600; } dl.facts dd { margin: 0; }
.delivery { border: 1px solid var(--line); border-radius: 6px; padding: .5rem .75rem; margin: .5rem 0; }
.delivery h3 { margin: 0 0 .25rem; }
.tag { display: inline-block; border: 1px solid var(--line); border-radius: 999px; padding: 0 .5rem; font-size: .8rem; }
.tag.fault-mark { border-color: var(--warn); color: var(--warn); font-weight: 600; margin-right: .25rem; }
tr.faulted td:first-child { box-shadow: inset 3px 0 var(--warn); }
form.fault-form { display: flex; flex-wrap: wrap; gap: .5rem 1rem; align-items: flex-end; }
form.fault-form .field { display: flex; flex-direction: column; min-width: 0; max-width: 100%; }
form.fault-form select, form.fault-form input { max-width: 100%; }
p.hint { margin: .25rem 0; } p.hint:empty, #fault-status:empty, .card-status:empty { display: none; }
.delivery h4 { font-size: .95rem; margin: .5rem 0 .25rem; }
ol.redeliveries { padding-left: 1.5rem; }
li.redelivery { border-left: 3px dashed var(--link); padding-left: .5rem; margin: .25rem 0; }
.tag.variant { border-style: dashed; border-color: var(--link); color: var(--link); }
form.redeliver { display: flex; flex-wrap: wrap; gap: .25rem .75rem; align-items: center; margin-top: .25rem; }
form.redeliver label { display: flex; gap: .25rem; align-items: center; max-width: 100%; min-width: 0; }
form.redeliver select { min-width: 0; flex: 1 1 auto; }
#status:empty { display: none; }
#status { border-left: 4px solid var(--line); padding: .25rem .75rem; }
@media (max-width: 48rem) {
  table, thead, tbody, tr, th, td { display: block; }
  thead { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); }
  tr { border: 1px solid var(--line); border-radius: 6px; margin: .5rem 0; padding: .25rem .5rem; }
  td { border: none; padding: .1rem 0; }
  td.num { text-align: left; }
  td[data-label]::before { content: attr(data-label) ": "; color: var(--muted); }
  dl.facts { grid-template-columns: 1fr; }
}
`;
