// The dashboard script's faults panel: the form that sets a fault (createFault), its choices read
// from /sandbox/ui/choices (the specs' operations, kinds and bounds; the sandbox's apps), and the
// active and spent faults as keyed rows, each with a Remove button (deleteFault) that is built
// once, so it keeps the focus through every update.

export const SCRIPT_FAULTS = String.raw`
  // ---- the form ----
  function setBounds(input, bounds) {
    if (bounds.min !== null) input.min = String(bounds.min);
    if (bounds.max !== null) input.max = String(bounds.max);
  }
  function fillFaultForm() {
    const operations = $("fault-operation");
    const group = (label, kind) => el("optgroup", { label }, ...choices.operations.filter((o) => o.interface === kind)
      .map((o) => el("option", { value: o.operationId, "data-interface": o.interface }, o.operationId + " — " + o.method + " " + o.path)));
    fillSelect(operations, [el("option", { value: "" }, "Choose an operation"), group("Signed interface (/open-api/v1)", "signed"), group("Key-based interface (/v1)", "keyed")]);
    fillSelect($("fault-kind"), choices.kinds.map((k) => el("option", { value: k.value }, k.value)));
    fillSelect($("fault-when"), choices.whens.map((w) => el("option", { value: w.value }, w.value)));
    fillSelect($("fault-app"), [el("option", { value: "" }, "every app")].concat(choices.apps.map((a) => el("option", { value: a.appKey }, a.appKey + (a.name !== a.appKey ? " (" + a.name + ")" : "")))));
    setBounds($("fault-times"), choices.bounds.times);
    if (choices.bounds.times.default !== null) $("fault-times").value = String(choices.bounds.times.default);
    setBounds($("fault-delay"), choices.bounds.delayMs);
    setBounds($("fault-retry-after"), choices.bounds.retryAfterSeconds);
    $("fault-add").disabled = false;
    describeFaultForm();
  }
  /** The hints and the fields that apply to the kind and operation chosen. */
  function describeFaultForm() {
    if (!choices) return;
    const kind = $("fault-kind").value;
    const when = choices.whens.find((w) => w.value === $("fault-when").value);
    setText($("fault-kind-hint"), kind + ": " + (faultKindMeaning(kind) || "see the scenarios guide") + ".");
    setText($("fault-when-hint"), when && when.meaning ? when.value + ": " + when.meaning + "." : "");
    const delayRequired = choices.delayRequiredKinds.includes(kind);
    $("fault-delay").required = delayRequired;
    setText($("fault-delay-note"), delayRequired ? "(required)" : "(optional)");
    const retryAfter = choices.retryAfterKinds.includes(kind);
    setHidden($("fault-retry-after-field"), !retryAfter);
    $("fault-retry-after").disabled = !retryAfter;
    const chosen = $("fault-operation").selectedOptions[0];
    const keyed = Boolean(chosen && chosen.dataset.interface === "keyed");
    // A key-based operation's callers have API keys, not app keys: its faults meet every caller.
    if (keyed) $("fault-app").value = "";
    $("fault-app").disabled = keyed;
    setText($("fault-app-note"), keyed ? "A key-based operation's fault meets every caller (they have API keys, not app keys)." : "");
  }
  async function addFault(event) {
    event.preventDefault();
    const body = { operationId: $("fault-operation").value, kind: $("fault-kind").value, when: $("fault-when").value, times: Number($("fault-times").value) };
    if ($("fault-delay").value !== "") body.delayMs = Number($("fault-delay").value);
    if (!$("fault-retry-after").disabled && $("fault-retry-after").value !== "") body.retryAfterSeconds = Number($("fault-retry-after").value);
    if (!$("fault-app").disabled && $("fault-app").value !== "") body.appKey = $("fault-app").value;
    await act("Add a fault", "/sandbox/faults", body, { target: $("fault-status"), done: (f) =>
      f.faultId + " set: the next " + (f.times === 1 ? "request" : f.times + " requests") + " of " + f.operationId + (f.appKey === null ? "" : " signed by " + f.appKey) + " meet" + (f.times === 1 ? "s" : "") + " " + f.kind + " " + f.when + "." });
  }

  // ---- the lists ----
  const FAULT_LABELS = ["Fault", "Operation", "Kind", "When", "Remaining", "App", "Delay, Retry-After", "Requests answered", "Actions"];
  function buildFault(f) {
    const row = el("tr", { id: "fault-" + f.faultId, tabindex: "-1", "data-fault": f.faultId });
    const c = cells(row, FAULT_LABELS);
    c[0].append(el("code"), el("br"), el("span", { class: "muted" }));
    c[7].append(el("span", { class: "answered" }), el("details", { class: "hits", hidden: true }, el("summary", {}, "Latest"), el("ol")));
    c[8].append(el("button", { type: "button", class: "remove", "aria-label": "Remove fault " + f.faultId, onclick: () => removeFault(f.faultId) }, "Remove"));
    return row;
  }
  function hitText(h) {
    return h.time + " · " + h.method + " " + h.path + (h.appKey ? " · " + h.appKey : "") + " · " + (h.carriedOut ? "carried out" + (h.operationCode === null ? "" : " (code " + h.operationCode + ")") : "not carried out") + " · answered " + (h.status === null ? "…" : h.status === 0 ? "nothing" : "HTTP " + h.status + (h.code === null ? "" : " code " + h.code));
  }
  function updateFault(row, f) {
    const c = Array.from(row.children);
    setText(c[0].children[0], f.faultId); setText(c[0].children[2], "set " + f.createTime);
    setText(c[1], f.operationId);
    setText(c[2], f.kind);
    setText(c[3], f.when);
    setText(c[4], f.remaining + " of " + f.times);
    setText(c[5], f.appKey === null ? "every app" : f.appKey);
    setText(c[6], [f.delayMs === null ? null : f.delayMs + " ms", f.retryAfterSeconds === null ? null : "Retry-After " + f.retryAfterSeconds + " s"].filter(Boolean).join(", ") || "–");
    setText(c[7].querySelector(".answered"), f.answered === 0 ? "none yet" : String(f.answered));
    const hits = c[7].querySelector(".hits");
    setHidden(hits, f.hits.length === 0);
    setText(hits.firstChild, "Latest " + f.hits.length);
    const list = hits.querySelector("ol");
    const texts = f.hits.map(hitText);
    if (list.dataset.texts !== JSON.stringify(texts)) {
      list.replaceChildren(...texts.map((text) => el("li", {}, text)));
      list.dataset.texts = JSON.stringify(texts);
    }
  }
  function renderFaults(state) {
    const active = state.faults.filter((f) => f.remaining > 0), spent = state.faults.filter((f) => f.remaining === 0);
    // A fault that became spent moves to the other table: its Remove keeps the focus there.
    const focused = document.activeElement && document.activeElement.classList.contains("remove") ? document.activeElement.closest("tr").dataset.fault : null;
    syncRows($("faults-active").tBodies[0], active, (f) => f.faultId, buildFault, updateFault);
    syncRows($("faults-spent").tBodies[0], spent, (f) => f.faultId, buildFault, updateFault);
    if (focused && (!document.activeElement || document.activeElement === document.body) && $("fault-" + focused)) $("fault-" + focused).querySelector("button.remove").focus();
    setHidden($("faults-active"), active.length === 0);
    setHidden($("faults-spent"), spent.length === 0);
    setText($("faults-active-count"), active.length === 0 ? "No active fault: every request is answered by its operation." : active.length + (active.length === 1 ? " fault meets" : " faults meet") + " requests, oldest first.");
    setText($("faults-spent-count"), spent.length === 0 ? "None spent." : spent.length + " spent (kept until removed or a reset).");
  }
  async function removeFault(faultId) {
    // The row goes away: the focus moves to the next fault's Remove (active or spent), else the
    // one before it, else to the panel's heading.
    const row = $("fault-" + faultId);
    const rows = Array.from(document.querySelectorAll("#faults tr[data-fault]"));
    const at = rows.indexOf(row);
    const next = at === -1 ? null : rows[at + 1] || rows[at - 1];
    const nextId = next ? next.dataset.fault : null;
    const outcome = await act("Remove fault " + faultId, "/sandbox/faults/" + encodeURIComponent(faultId), undefined, { method: "DELETE", target: $("fault-status") });
    // Refused or not, the row is gone once the sandbox no longer holds the fault.
    if (!row || document.contains(row)) return outcome;
    const target = nextId && $("fault-" + nextId);
    if (target) target.querySelector("button.remove").focus();
    else $("faults-h").focus();
    return outcome;
  }
`;
