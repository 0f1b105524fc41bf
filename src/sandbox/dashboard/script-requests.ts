// The dashboard script's request log: the latest requests (each marked when a fault answered it),
// the filters, and a request's detail, fetched once when opened and not redrawn by polling.

export const SCRIPT_REQUESTS = String.raw`
  // ---- a fault's mark on a request ----
  function faultKindMeaning(kind) {
    const found = choices && choices.kinds.find((k) => k.value === kind);
    return found && found.meaning ? found.meaning : null;
  }
  /** "Fault flt_1: internal-error after · carried out", short enough for a list line. */
  function faultMarkText(f) {
    return "Fault " + (f.source === "header" ? "(X-Sandbox-Fault header)" : f.faultId) + ": " + f.kind + " " + f.when + " · " + (f.carriedOut ? "operation carried out" : "operation not carried out");
  }
  /** What became of the operation the fault met, in full. */
  function faultOutcomeText(f) {
    if (f.when === "after") return "after the operation, which was carried out" + (f.operationCode === null ? "" : " and answered code " + f.operationCode) + "; the fault's answer replaced that one";
    if (f.carriedOut) return "before the operation, which then ran late (carried out)";
    return "before the operation, which was not carried out";
  }
  function faultFact(f) {
    if (!f) return "none";
    const known = f.faultId !== null && lastState && lastState.faults.some((x) => x.faultId === f.faultId);
    const who = f.source === "header" ? "the X-Sandbox-Fault header of this request" : known ? el("a", { href: "#fault-" + f.faultId }, "fault " + f.faultId) : "fault " + f.faultId + " (deleted since)";
    const meaning = faultKindMeaning(f.kind);
    const extras = [f.delayMs === null ? null : "delay " + f.delayMs + " ms", f.retryAfterSeconds === null ? null : "Retry-After " + f.retryAfterSeconds + " s"].filter(Boolean);
    return el("span", { class: "fault-fact" }, who, ": ", el("strong", {}, f.kind), meaning ? " (" + meaning + ")" : "", ", " + faultOutcomeText(f) + (extras.length ? " · " + extras.join(" · ") : "") + ".");
  }

  // ---- requests ----
  let selectedId = null;
  const REQUEST_LABELS = ["Time", "Request", "Operation", "HTTP", "Code", "Diagnosis", "ms"];
  function buildRequest(r) {
    const row = el("tr");
    const c = cells(row, REQUEST_LABELS);
    c[1].append(el("button", { type: "button", class: "link", onclick: () => openDetail(r.id) }));
    c[4].className = "num"; c[6].className = "num";
    c[5].append(el("span", { class: "tag fault-mark", hidden: true }), el("span", { class: "diagnosis-text" }));
    return row;
  }
  function updateRequest(row, r) {
    const c = Array.from(row.children);
    setText(c[0], r.time);
    setText(c[1].firstChild, r.method + " " + r.url);
    c[1].firstChild.setAttribute("aria-label", "Details of " + r.method + " " + r.url + " at " + r.time);
    setText(c[2], r.operationId || "–");
    // 0: the connection was closed without an answer (a fault's timeout or reset, a client gone).
    setText(c[3], r.status === 0 ? "0 (no answer)" : r.status);
    setClass(c[3], r.outcome === "ok" ? "good" : "bad");
    setText(c[4], r.code === null ? "–" : r.code);
    const mark = c[5].querySelector(".fault-mark");
    setHidden(mark, !r.fault);
    setText(mark, r.fault ? faultMarkText(r.fault) : "");
    setText(c[5].querySelector(".diagnosis-text"), r.diagnosis ? r.diagnosis + (r.message ? ": " + r.message : "") : "");
    setText(c[6], r.durationMs);
    if (row.classList.contains("faulted") !== Boolean(r.fault)) row.classList.toggle("faulted", Boolean(r.fault));
  }
  function matches(r) {
    const status = $("filter-status").value, operation = $("filter-operation").value, app = $("filter-app").value;
    const text = $("filter-text").value.trim().toLowerCase();
    if (status && r.outcome !== status) return false;
    if (operation && r.operationId !== operation) return false;
    if (app && r.app !== app) return false;
    if ($("filter-fault").checked && !r.fault) return false;
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
    fact("Answer", d.status === 0 ? "none: the connection was closed without an answer" : "HTTP " + d.status + (d.code === null ? "" : " · code " + d.code));
    fact("Time", d.time + " (sandbox clock) · " + d.durationMs + " ms");
    fact("App", d.app ? d.app + (d.appVerified ? " (signature verified)" : " (as named in the request; not verified)") : "–");
    fact("Fault", faultFact(d.fault));
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
`;
