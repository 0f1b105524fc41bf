// The dashboard script's callback cards: the event's payload, its attempts (the scheduled ones
// and manual resends), and apart from them the redeliveries asked for with redeliverCallback,
// each with its variant, when it was sent or is due, what the receiver answered and whether
// that is what a correct receiver answers; Resend and Redeliver (with a variant) on each card.

export const SCRIPT_CALLBACKS = String.raw`
  // ---- callback deliveries ----
  function fillVariants(card) {
    if (!choices) return;
    fillSelect(card.querySelector(".redeliver-variant"), choices.variants.map((v) =>
      el("option", { value: v.value }, v.value + " (a correct receiver " + (v.expected === "acknowledged" ? "acknowledges it" : "refuses it") + ")")));
    const after = card.querySelector(".redeliver-after");
    const bounds = choices.bounds.afterSeconds;
    if (bounds.min !== null) after.min = String(bounds.min);
    if (bounds.max !== null) after.max = String(bounds.max);
  }
  function buildDelivery(d) {
    const card = el("article", { class: "delivery", "data-event": d.eventId, "aria-label": "Callback " + d.eventId });
    const status = el("p", { class: "card-status", role: "status", "aria-live": "polite" });
    card.append(
      el("h3", {}, el("span", { class: "type" }), " ", el("code", {}, d.eventId), " ", el("span", { class: "state" })),
      el("p", { class: "muted meta" }),
      el("details", { class: "payload" }, el("summary", {}, "Payload (the exact bytes of every attempt)"), pre("", "payload-text")),
      el("ol", { class: "attempts", "aria-label": "Attempts: the first, the scheduled retries and manual resends" }),
      el("button", { type: "button", onclick: () => act("Resend " + d.eventId, "/sandbox/ui/callbacks/" + encodeURIComponent(d.eventId) + "/resend", undefined, { target: status }) }, "Resend"),
      el("div", { class: "redeliveries-block", hidden: true },
        el("h4", {}, "Redeliveries (variants; not retries)"),
        el("p", { class: "muted redeliveries-note", hidden: true }),
        el("ol", { class: "redeliveries" })),
      el("form", { class: "redeliver", onsubmit: (event) => { event.preventDefault(); redeliver(d.eventId, card, status); } },
        el("label", {}, "Variant ", el("select", { class: "redeliver-variant" })), " ",
        el("label", {}, "after (s) ", el("input", { class: "redeliver-after", type: "number", step: "1", value: "0", required: true })), " ",
        el("button", { type: "submit" }, "Redeliver")),
      status);
    fillVariants(card);
    return card;
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
  function buildRedelivery() {
    return el("li", { class: "redelivery" }, el("span", { class: "tag variant" }), " ", el("span", { class: "summary" }), " ", el("span", { class: "verdict" }),
      el("details", { class: "sent-signature", hidden: true }, el("summary", {}, "Signature headers sent"), pre("", "sent-headers")),
      el("details", { class: "sent-body", hidden: true }, el("summary", {}, "Body sent (not the event's own bytes)"), pre("", "body-sent")),
      el("div", { class: "answer", hidden: true }, el("span", {}, "The receiver answered:"), pre("", "response")));
  }
  function redeliverySummary(r) {
    if (r.status === "scheduled") return "scheduled for " + r.dueTime;
    if (r.status === "refused") return "not sent (due " + r.dueTime + ") · " + (r.error || "refused");
    return "sent " + r.time + (r.time !== r.dueTime ? " (due " + r.dueTime + ")" : "") + " · " + (r.httpStatus === null ? "no answer" : "HTTP " + r.httpStatus) + (r.error ? " · " + r.error : "") + " · " + r.durationMs + " ms";
  }
  const expectation = (expected) => "a correct receiver " + (expected === "acknowledged" ? "acknowledges it (2xx)" : "refuses it (not 2xx)");
  function updateRedelivery(li, r) {
    setText(li.querySelector(".variant"), "redelivery: " + r.variant);
    setText(li.querySelector(".summary"), redeliverySummary(r));
    const verdict = li.querySelector(".verdict");
    setText(verdict, (r.asExpected === null ? "" : r.asExpected ? "as expected: " : "NOT as expected: ") + expectation(r.expected));
    setClass(verdict, "verdict " + (r.asExpected === null ? "muted" : r.asExpected ? "good" : "bad"));
    const headers = Object.entries(r.headers).map((h) => h[0] + ": " + h[1]).join("\n");
    setHidden(li.querySelector(".sent-signature"), headers === "");
    setText(li.querySelector(".sent-headers"), headers);
    setHidden(li.querySelector(".sent-body"), r.body === null);
    setText(li.querySelector(".body-sent"), r.body || "");
    setHidden(li.querySelector(".answer"), r.responseBody === null);
    setText(li.querySelector(".response"), r.responseBody || "");
  }
  function updateDelivery(card, d) {
    fillVariants(card);
    setText(card.querySelector(".type"), d.type);
    const state = card.querySelector(".state");
    setText(state, d.status); setClass(state, "state " + (d.status === "delivered" ? "good" : d.status === "failed" ? "bad" : "muted"));
    setText(card.querySelector(".meta"), "to " + (d.targetUrl || "(no target)") + (d.tradeNo ? " · trade " + d.tradeNo : "") + (d.nextAttemptTime ? " · next attempt " + d.nextAttemptTime : "") + (d.failureReason ? " · " + d.failureReason : ""));
    setText(card.querySelector(".payload-text"), d.body);
    syncRows(card.querySelector(".attempts"), d.attempts, (a) => a.attempt, buildAttempt, updateAttempt);
    const redeliveries = d.redeliveries || [];
    setHidden(card.querySelector(".redeliveries-block"), redeliveries.length === 0);
    const note = card.querySelector(".redeliveries-note");
    const left = d.redeliveriesNotShown || { earlier: 0, later: 0 };
    const parts = [left.earlier ? left.earlier + " earlier" : null, left.later ? left.later + " later" : null].filter(Boolean);
    setHidden(note, parts.length === 0);
    setText(note, parts.length ? "Not shown here: " + parts.join(" and ") + " (listCallbackDeliveries lists every one)." : "");
    syncRows(card.querySelector(".redeliveries"), redeliveries, (r) => r.redeliveryId, buildRedelivery, updateRedelivery);
  }
  function redeliveryOutcome(r) {
    if (r.status === "scheduled") return "scheduled for " + r.dueTime + " (sandbox clock)";
    if (r.status === "refused") return "not sent: " + (r.error || "refused");
    const answered = r.httpStatus === null ? "no answer (" + r.error + ")" : "HTTP " + r.httpStatus;
    return "the receiver answered " + answered + (r.asExpected ? ", as a correct receiver must" : ", which a correct receiver must not: " + expectation(r.expected));
  }
  function redeliver(eventId, card, status) {
    const variant = card.querySelector(".redeliver-variant").value;
    const after = Number(card.querySelector(".redeliver-after").value || 0);
    const body = { variant };
    if (after > 0) body.afterSeconds = after;
    return act("Redeliver " + eventId + " as " + variant, "/sandbox/callbacks/" + encodeURIComponent(eventId) + "/redeliver", body,
      { target: status, done: (data) => data.redeliveries.map(redeliveryOutcome).join("; ") + "." });
  }
`;
