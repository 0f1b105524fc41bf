// The dashboard's script: plain browser JavaScript (no build step), DOM methods and textContent
// only (paths, bodies, app keys and receivers' answers come from whoever called the sandbox, so
// none of it is ever parsed as HTML). It reads what its forms offer once (/sandbox/ui/choices),
// polls /sandbox/ui/state once a second and updates the page in place: rows are keyed (request
// id, faultId, tradeNo, orderId, eventId, redeliveryId) and a cell is written only when its text
// changes, so focus, a text selection, the scroll position and open <details> survive every
// update. The request detail is fetched once when opened and not redrawn by polling.
// The parts are written with String.raw: the browser sees the backslashes as they are written.
import { SCRIPT_CALLBACKS } from "./script-callbacks.js";
import { SCRIPT_CORE } from "./script-core.js";
import { SCRIPT_FAULTS } from "./script-faults.js";
import { SCRIPT_RECORDS } from "./script-records.js";
import { SCRIPT_REQUESTS } from "./script-requests.js";

const SCRIPT_MAIN = String.raw`
  // ---- choices, polling, pause, connection ----
  let lastState = null;
  /** What the forms offer (GET /sandbox/ui/choices), read once. */
  let choices = null;
  let paused = false;
  /** The read of the state in flight, if any. */
  let inflight = null;
  let downSince = null;
  function connection(text, cls) {
    setText($("connection"), text);
    setClass($("connection"), cls);
  }
  async function loadChoices() {
    const response = await fetch("/sandbox/ui/choices", { cache: "no-store" });
    if (!response.ok) throw new Error("HTTP " + response.status);
    choices = await response.json();
    fillFaultForm();
  }
  /**
   * Reads the state and updates the page. A poll skips while a read is in flight; an action's
   * refresh (force) waits for it and reads again, so it shows what the action did.
   */
  async function refresh(force) {
    if (paused && !force) return;
    if (inflight && !force) return;
    while (inflight) await inflight;
    inflight = readState();
    try {
      await inflight;
    } finally {
      inflight = null;
    }
  }
  async function readState() {
    try {
      if (!choices) await loadChoices();
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
      renderFaults(state);
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
    $("fault-form").addEventListener("submit", addFault);
    for (const id of ["fault-operation", "fault-kind", "fault-when"]) $(id).addEventListener("change", describeFaultForm);
    $("filters").addEventListener("submit", (event) => event.preventDefault());
    for (const id of ["filter-status", "filter-operation", "filter-app", "filter-text", "filter-fault"]) $(id).addEventListener("input", () => lastState && renderRequests(lastState));
    refresh();
    setInterval(refresh, 1000);
  });
`;

export const DASHBOARD_JS = `"use strict";
(function () {${SCRIPT_CORE}${SCRIPT_REQUESTS}${SCRIPT_FAULTS}${SCRIPT_RECORDS}${SCRIPT_CALLBACKS}${SCRIPT_MAIN}})();
`;
