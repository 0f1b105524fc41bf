// The dashboard script's shared helpers (script.ts assembles the parts into one function body):
// elements built with DOM methods and textContent only, text written only when it changed,
// keyed rows updated in place, and the page's actions as same-origin JSON requests.

export const SCRIPT_CORE = String.raw`
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
  function setHidden(node, hidden) {
    if (node.hidden !== hidden) node.hidden = hidden;
  }
  /** A message in a status line: the page's own, or one beside the control that acted. */
  function say(text, bad, target) {
    const node = target || $("status");
    setText(node, text);
    if (node.classList.contains("bad") !== Boolean(bad)) node.classList.toggle("bad", Boolean(bad));
  }

  // ---- actions: same-origin JSON, as the control API requires of state-changing requests ----
  async function send(method, path, body) {
    const response = await fetch(path, { method, headers: { "Content-Type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body), credentials: "same-origin" });
    let answer = null;
    try { answer = await response.json(); } catch (_) { /* not JSON */ }
    return { status: response.status, answer };
  }
  /**
   * Runs one call, says how it went (options.target, else the page's status line; options.done
   * words a success from its data), refreshes the page, and answers { ok, data }. A refusal is
   * shown with the API's own message.
   */
  async function act(label, path, body, options) {
    const opts = options || {};
    say(label + "…", false, opts.target);
    let outcome = { ok: false, data: null };
    try {
      const { status, answer } = await send(opts.method || "POST", path, body);
      if (answer && (answer.code === 0 || answer.ok === true)) {
        outcome = { ok: true, data: answer.data === undefined ? answer : answer.data };
        say(label + ": " + (opts.done ? opts.done(outcome.data) : "done."), false, opts.target);
      } else say(label + ": refused (HTTP " + status + ") " + ((answer && (answer.msg || answer.reason)) || ""), true, opts.target);
    } catch (error) {
      say(label + ": " + error.message, true, opts.target);
    }
    await refresh(true);
    return outcome;
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
  function pre(text, cls) { return el("pre", { class: cls || null }, text); }
  /** Options of a <select>, written once (a rebuilt list would lose the chosen value). */
  function fillSelect(select, options) {
    if (select.dataset.filled) return;
    select.dataset.filled = "1";
    for (const option of options) select.append(option);
  }
`;
